#!/usr/bin/env python3
"""Writes the exploration pools of direct_mma with wave_k 2 (each item's k16 steps split between
the two warps of a pair, the second's sums added by the first through shared memory), forward
and bwd_data, 2D and 3D, for C/G 8, 16 and 32: the shapes whose tiles leave most warps of a
block idle or whose items are long (resnext50_s3 / s4, g4_128_3d, resnext3d_g32). Pick the
shipped pools out of their runs with bench/pool_from_runs.py. 64-pixel warp tiles stop at 8
warps (16 warps leave 128 registers a thread, and they spill).
usage: python3 bench/configs/direct_mma_ksplit_explore.py  (writes bench/configs/*_ksplit_explore.json)"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# (pixels, channels, C/G, warp tile m) per dimension count; each with wave_m 2, 4 and 8.
TILES = {
    2: [(28, 32, 32, 16), (56, 32, 32, 16), (56, 32, 32, 32), (112, 32, 32, 32),
        (112, 32, 16, 32), (196, 32, 16, 32), (196, 32, 16, 64), (224, 32, 8, 32),
        (448, 32, 8, 64)],
    3: [(112, 32, 32, 32), (224, 32, 32, 32), (224, 32, 32, 64), (56, 32, 16, 32),
        (112, 32, 16, 32), (224, 32, 8, 32), (224, 32, 8, 64)],
}


def description(variant, ndim):
    what = "forward" if variant == "forward" else "bwd_data (the forward kernel of its view)"
    return (f"{what} bf16 {ndim}D: exploration pool of direct_mma with wave_k 2: the warps of a "
            "block form pairs, each pair's two warps reduce half of an item's k16 steps and the "
            "first adds the second's sums (shared memory, a named barrier per pair); tile m = "
            "output pixels, n = channels, k = the C/G the kernel is built for")


def pool(variant, ndim):
    tiles = []
    for m, n, k, wm in TILES[ndim]:
        for waves in (2, 4, 8):
            if wm == 64 and waves == 8:
                continue  # 16 warps leave 128 registers: 64-pixel warp tiles spill
            tiles.append({"m": m, "n": n, "k": k, "wave": [waves, 1, 2],
                          "warp_tile": [wm, k if k >= 8 else 8, 16]})
    tc = {
        "data_type": {"values": ["bf16"]},
        "pipeline": {"values": ["direct_mma"]},
        "epilogue": {"values": ["direct"]},
        "ndim_spatial": {"values": [ndim]},
        "tile": {"values": tiles},
        "double_smem_buffer": {"values": [False, True]},
    }
    return {"variant": variant, "description": description(variant, ndim), "trait_config": tc}


if __name__ == "__main__":
    for variant in ("forward", "bwd_data"):
        for ndim in (2, 3):
            path = os.path.join(HERE, f"{variant}_{ndim}d_direct_mma_ksplit_explore.json")
            with open(path, "w") as f:
                json.dump(pool(variant, ndim), f, indent=2)
                f.write("\n")
            print(path)
