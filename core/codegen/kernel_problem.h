#pragma once
// The problem a kernel's main step computes, which is the problem as given but for two
// rewrites: a 2D kernel runs a 3D problem that is a 2D problem as that 2D problem
// (fold_to_2d.h), and a channel_pad kernel runs the channel-padded problem (channel_pad.h).
// Every planning entry (is_supported, plan_sequence, main_entry_name, note_entries) starts from
// it; the result row and the reference keep the problem as given. Idempotent (a folded problem
// is 2D, a padded C/G a multiple of the vector), so an entry may be handed its result.
#include "config/kernel_config.h"
#include "problem/problem.h"

namespace gconv {

Problem kernel_problem(const KernelConfig& config, const Problem& problem);

} // namespace gconv
