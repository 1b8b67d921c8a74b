#!/bin/bash
# The single-GPU captures (test resources and examples): run_single_gpu.sh OUTDIR [NAME...]
# Without names, all of them. Each capture has a time limit of its own, so one that fails leaves the
# others; logs in OUTDIR/logs. With PACK_DIR set, each capture is also packed as PACK_DIR/NAME.tar.gz
# as soon as it is written (a lent machine's output folder, which takes few files).
export PYTHONUNBUFFERED=1
OUT=$(realpath -m "${1:-./captures}")
shift
cd "$(dirname "$0")"
mkdir -p "$OUT/logs"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv | tee "$OUT/logs/gpu.txt"
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'nccl', torch.cuda.nccl.version())" | tee -a "$OUT/logs/gpu.txt"
R1="python3 -m torch.distributed.run --standalone --nproc_per_node 1"
declare -A CMD=(
  [zoo-annotations]="python3 op_zoo.py $OUT/zoo-annotations"
  [zoo-modules]="python3 op_zoo.py $OUT/zoo-modules --stack --no-annotations"
  [compile-reduce-overhead]="python3 capture_compile.py $OUT/compile-reduce-overhead"
  # MoE decode, batch 1; 30 layers, so that the W4A16 experts fit one 80 GB card
  [moe-eager-b1]="$R1 capture_moe_decode.py $OUT/moe-eager-b1 --layers 30 --steps 6"
  [moe-graph-b1]="$R1 capture_moe_decode.py $OUT/moe-graph-b1 --layers 30 --steps 6 --graph"
  [moe-eager-b1-hostsync]="$R1 capture_moe_decode.py $OUT/moe-eager-b1-hostsync --layers 30 --steps 6 --host-sync"
  [moe-ep-b1]="$R1 capture_moe_decode.py $OUT/moe-ep-b1 --parallel ep --layers 16 --ep-inter 512 --steps 6"
  [moe-ep-b1-modules]="$R1 capture_moe_decode.py $OUT/moe-ep-b1-modules --parallel ep --layers 4 --ep-inter 512 --steps 3 --stack --no-annotations"
)
ORDER="zoo-annotations zoo-modules compile-reduce-overhead moe-eager-b1 moe-graph-b1 moe-eager-b1-hostsync moe-ep-b1 moe-ep-b1-modules"
source ./capture_each.sh
capture_each ${*:-$ORDER}
