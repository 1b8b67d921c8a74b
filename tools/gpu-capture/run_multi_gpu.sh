#!/bin/bash
# The multi-GPU captures (4 or 8 ranks on one host): run_multi_gpu.sh OUTDIR [NAME...]
# Without names, all of them, on every GPU nvidia-smi lists (NPROC overrides). Each capture has a time limit
# of its own, so one that fails leaves the others; logs in OUTDIR/logs. With PACK_DIR set, each capture is
# also packed as PACK_DIR/NAME.tar.gz as soon as it is written (a lent machine's output folder).
#   tp-graph     tensor parallel decode, each step one CUDA graph (vLLM's default)
#   tp-eager     the same without CUDA graphs
#   ep-eager     expert parallel: all_to_all_single dispatch and combine (NCCL SendRecv kernels)
#   tp-straggler tensor parallel, eager, rank 1 runs one extra 50 µs kernel per layer before the layer's
#                first all-reduce (spin_kernel): the known straggler, 61 x 50 µs = 3.05 ms a step
#                (with one rank, NPROC=1, there is no rank 1: the run is tp-eager's)
export PYTHONUNBUFFERED=1
OUT=$(realpath -m "${1:-./captures-multi}")
shift
cd "$(dirname "$0")"
mkdir -p "$OUT/logs"
N=${NPROC:-$(nvidia-smi --list-gpus | wc -l)}
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv | tee "$OUT/logs/gpu.txt"
nvidia-smi topo -m | tee -a "$OUT/logs/gpu.txt"
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, 'nccl', torch.cuda.nccl.version())" | tee -a "$OUT/logs/gpu.txt"
RN="python3 -m torch.distributed.run --standalone --nproc_per_node $N"
# 61 layers when the ranks share the W4A16 experts (tp: 64 experts' columns split N ways), fewer with ep's bf16
# experts (64/N whole experts a rank) so that each rank fits an 80 GB card. TP_LAYERS overrides the 61 (a trial
# on one or two GPUs: NPROC=1 TP_LAYERS=8).
L=${TP_LAYERS:-61}
declare -A CMD=(
  [tp-graph]="$RN capture_moe_decode.py $OUT/tp-graph --layers $L --steps 6 --graph"
  [tp-eager]="$RN capture_moe_decode.py $OUT/tp-eager --layers $L --steps 6"
  [ep-eager]="$RN capture_moe_decode.py $OUT/ep-eager --parallel ep --layers 16 --ep-inter 512 --steps 6"
  [tp-straggler]="$RN capture_moe_decode.py $OUT/tp-straggler --layers $L --steps 6 --slow-rank 1 --slow-us 50"
)
ORDER="tp-graph tp-eager ep-eager tp-straggler"
echo "ranks: $N" | tee -a "$OUT/logs/gpu.txt"
source ./capture_each.sh
capture_each ${*:-$ORDER}
