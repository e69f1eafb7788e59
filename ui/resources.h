#pragma once
// The explorer's Qt resources (icons, the bundled sample results) live in the static gconv_ui
// library, whose resource object the linker would drop: this registers them. Idempotent.
namespace gconv::ui {
void initResources();
}
