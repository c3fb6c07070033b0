#pragma once
namespace fleetcast::cli {
int dispatch(int argc, char** argv);
}
