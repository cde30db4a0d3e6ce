// The rbc kernels on the CUDA backend, from the same functors as cpu.cpp.
#include "core/exec/launch_cuda.cuh"
#include "plugins/rbc/kernels.hpp"

HEMO_INSTANTIATE_CUDA(hemo::rbc::AssignTiles<float>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::AssignTiles<double>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::CellForces<float>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::CellForces<double>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::CellKick<float>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::CellKick<double>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::SpreadDrag<float>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::SpreadDrag<double>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::CellDrift<float>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::CellDrift<double>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::GhostCover<float>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::GhostCover<double>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::GatherVelocity<float>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::GatherVelocity<double>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::OrderTilesById);
HEMO_INSTANTIATE_CUDA(hemo::rbc::AssignGhostTiles<float>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::AssignGhostTiles<double>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::GatherGhostRecords<float>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::GatherGhostRecords<double>);
HEMO_INSTANTIATE_CUDA(hemo::rbc::ShiftedCopy);
