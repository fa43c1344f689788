// bench/cuda/peers_cccl.cpp — the CUB peers of cuda/peers.cpp compiled against a newer CCCL than
// the toolkit's (KPS_CCCL_ROOT, whose include folders come first for this file alone), in
// kps::bench::cuda::cccl, with CUB wrapped in a namespace of its own (CUB_WRAPPED_NAMESPACE, set by
// bench/CMakeLists.txt) so that both CUBs live in one program.
#define KPS_CUB_PEER_NAMESPACE kps::bench::cuda::cccl
#define KPS_CUB_PEER_NAME "cub_cccl"
#define KPS_CUB_PEER_RANK 1
#include "peers.cpp"
