#!/usr/bin/env bash
# On the development machine (session 39; no GPU): SASS of the attention kernels, and scripts/sass_hazards.py's
# count of writes to the A-operand registers of a wgmma (HGMMA) still in flight. cuobjdump and
# nvdisasm are not in the image: the PyPI wheels nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm
# (13.5.37) unpacked into /tmp/nvd. gen = prepare.sh's output, gen5 = r5's hand-edited FA3.
set -u
H=bench/results/2026-12-05-h200-sched
export PATH=/tmp/nvd/nd/nvidia/cu13/bin:$PATH
for d in build-gpu/s39/gen/flash_attention_2 build-gpu/s39/gen/flash_attention_3 build-gpu/s39/gen/flash_attention_3_pp build-gpu/s39/gen5/flash_attention_3_ppu; do
  n=$(basename "$d")
  /usr/local/cuda/bin/nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Iruntime -I"$d" -cubin "$d/mha.cu" -o "/tmp/$n.cubin" 2>&1 | grep -o 'C751[23]' | sort | uniq -c | tr '\n' ' ' | sed "s/^/$n: ptxas wgmma-serialized warnings (C7512, C7513): /"; echo
  /tmp/nvd/cu/nvidia/cu13/bin/cuobjdump -sass "/tmp/$n.cubin" > "/tmp/$n.sass"
  echo "$n: $(python3 scripts/sass_hazards.py /tmp/$n.sass | tail -1)"
done
