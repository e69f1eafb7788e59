#pragma once
// The opt-in switches read from the environment (GCONV_WGMMA_INPUT_TILED,
// GCONV_WGMMA_FINISH_IN_BLOCK, GCONV_WORKSPACE_KEPT_ZERO, GCONV_MIOPEN_EXHAUSTIVE): on only
// when the variable is exactly "1", so an empty, "0" or misspelt value keeps the default.

namespace gconv {

bool env_switch_on(const char* name);

} // namespace gconv
