// The talus command line. (Skeleton; subcommands arrive with the scenario runner.)
#include <CLI/CLI.hpp>

int main(int argc, char** argv) {
  CLI::App app{"talus: robots in sand, soil and gravel"};
  CLI11_PARSE(app, argc, argv);
  return 0;
}
