// bench/cuda/peers_cccl_next.cpp — the CUB peers of cuda/peers.cpp compiled against a third CCCL
// (KPS_CCCL_NEXT_ROOT, e.g. a release candidate newer than KPS_CCCL_ROOT's), in
// kps::bench::cuda::cccl_next, with CUB wrapped in a namespace of its own (CUB_WRAPPED_NAMESPACE,
// set by bench/CMakeLists.txt) so that all three CUBs live in one program.
#define KPS_CUB_PEER_NAMESPACE kps::bench::cuda::cccl_next
#define KPS_CUB_PEER_NAME "cub_next"
#define KPS_CUB_PEER_RANK 2
#include "peers.cpp"
