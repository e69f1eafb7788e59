#!/usr/bin/env python3
"""Writes the exploration pools of the tensor-core direct K x K entries (direct with warp tile
16x8x16), forward, bwd_data and bwd_weight: row blocks per tile (tile_k; bwd_weight up to 4),
widest tile 16, 32 or 64 columns (tile_m = 16 x tile_k x columns), 8 to 32 channels (bwd_weight
8 and 16: its two input copies take more shared memory), 2, 4 or 8 warps, each with
block_per_cu 1 and 2. Pick the shipped pools out of their runs with bench/pool_from_runs.py.
usage: python3 bench/configs/direct_tc_explore.py  (writes bench/configs/*_direct_tc_explore.json)"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

DESCRIPTIONS = {
    "forward": "forward bf16 2D: exploration pool of the tensor-core direct K x K entries (warp "
               "tile 16x8x16): 16 x tile_k rows x tile_m / (16 x tile_k) columns x tile_n "
               "channels per block tile, wave_m warps taking 16x16x8 items in turn",
    "bwd_data": "bwd_data bf16 2D: exploration pool of the tensor-core direct K x K entries (warp "
                "tile 16x8x16): 16 x tile_k rows x tile_m / (16 x tile_k) columns x tile_n "
                "channels per block tile, wave_m warps taking 16x16x8 items in turn",
    "bwd_weight": "bwd_weight bf16 2D: exploration pool of the tensor-core direct K x K entries "
                  "(warp tile 16x8x16): a block reduces 16 x tile_k output rows x tile_m / (16 x "
                  "tile_k) columns of one image for tile_n channels, one Hankel x dOut mma.sync "
                  "per input row, 16 columns and channel; wave_m warps take (8 channels, 16 "
                  "columns) items in turn",
}


def tiles(variant):
    weight = variant == "bwd_weight"
    out = []
    for k in (1, 2, 4) if weight else (1, 2):
        for cols in (16, 32, 64):
            for n in (8, 16) if weight else (8, 16, 32):
                for warps in (2, 4, 8):
                    out.append({"m": 16 * k * cols, "n": n, "k": k, "wave": [warps, 1, 1],
                                "warp_tile": [16, 8, 16]})
    return out


def pool(variant):
    tc = {
        "data_type": {"values": ["bf16"]},
        "pipeline": {"values": ["direct"]},
        "ndim_spatial": {"values": [2]},
        "tile": {"values": tiles(variant)},
        "vector_size_a": {"values": [8]},
    }
    if variant == "bwd_weight":
        tc["split_k_mode"] = {"values": ["atomic"]}
    tc["block_per_cu"] = {"values": [1, 2]}
    return {"variant": variant, "description": DESCRIPTIONS[variant], "trait_config": tc}


if __name__ == "__main__":
    for variant in ("forward", "bwd_data", "bwd_weight"):
        path = os.path.join(HERE, f"{variant}_direct_tc_explore.json")
        with open(path, "w") as f:
            json.dump(pool(variant), f, indent=2)
            f.write("\n")
        print(path)
