#!/usr/bin/env bash
# On the development machine: r3.sh's and r4.sh's binaries into build-gpu/s33b, built as prepare1.sh builds them, from the
# loom of commit 8de0aed (the committed tuner: each candidate after 20 ms of its own launches, two passes, the second
# reversed, the model's pick kept within 3%) and bench/gemm_mappings.cu with --settle-ms and the second round reversed.
S=build-gpu/s33b exec bash "$(dirname "$0")/prepare1.sh"
