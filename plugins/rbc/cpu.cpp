// The rbc kernels on the host backend (OpenMP).
#include "core/exec/launch_host.hpp"
#include "plugins/rbc/kernels.hpp"

HEMO_INSTANTIATE_HOST(hemo::rbc::AssignTiles<float>);
HEMO_INSTANTIATE_HOST(hemo::rbc::AssignTiles<double>);
HEMO_INSTANTIATE_HOST(hemo::rbc::CellForces<float>);
HEMO_INSTANTIATE_HOST(hemo::rbc::CellForces<double>);
HEMO_INSTANTIATE_HOST(hemo::rbc::CellKick<float>);
HEMO_INSTANTIATE_HOST(hemo::rbc::CellKick<double>);
HEMO_INSTANTIATE_HOST(hemo::rbc::SpreadDrag<float>);
HEMO_INSTANTIATE_HOST(hemo::rbc::SpreadDrag<double>);
HEMO_INSTANTIATE_HOST(hemo::rbc::CellDrift<float>);
HEMO_INSTANTIATE_HOST(hemo::rbc::CellDrift<double>);
HEMO_INSTANTIATE_HOST(hemo::rbc::GhostCover<float>);
HEMO_INSTANTIATE_HOST(hemo::rbc::GhostCover<double>);
HEMO_INSTANTIATE_HOST(hemo::rbc::GatherVelocity<float>);
HEMO_INSTANTIATE_HOST(hemo::rbc::GatherVelocity<double>);
HEMO_INSTANTIATE_HOST(hemo::rbc::OrderTilesById);
HEMO_INSTANTIATE_HOST(hemo::rbc::AssignGhostTiles<float>);
HEMO_INSTANTIATE_HOST(hemo::rbc::AssignGhostTiles<double>);
HEMO_INSTANTIATE_HOST(hemo::rbc::GatherGhostRecords<float>);
HEMO_INSTANTIATE_HOST(hemo::rbc::GatherGhostRecords<double>);
HEMO_INSTANTIATE_HOST(hemo::rbc::ShiftedCopy);
