// SPDX-License-Identifier: GPL-2.0-only
// schedlab topology --host: the host's CPU topology as a scenario's [machine] section.
#include <cstdio>

#include "cli/commands.h"
#include "machine/host_topology.h"

namespace schedlab::cli {

Command add_topology_command(CLI::App &app) {
  struct Args {
    bool host = false;
    std::string root = kDefaultSysfsRoot;
  };
  auto a = std::make_shared<Args>();
  CLI::App *cmd = app.add_subcommand(
      "topology", "Print the [machine] section that describes this host (from sysfs)");
  cmd->add_flag("--host", a->host, "Describe the host this runs on (the only source so far)");
  cmd->add_option("--sysfs-root", a->root,
                  "Read DIR/cpu and DIR/node instead of /sys/devices/system")
      ->type_name("DIR");
  cmd->allow_extras(false);
  return {cmd, [a] {
            if (!a->host) {
              std::fprintf(stderr, "schedlab topology: say --host (the only source so far)\n");
              return kExitBadInput;
            }
            try {
              std::fputs(machine_toml(read_host_topology(a->root)).c_str(), stdout);
            } catch (const HostTopologyError &e) {
              std::fprintf(stderr, "schedlab topology: %s\n", e.what());
              return e.malformed() ? kExitBadInput : kExitUnsupported;
            }
            return 0;
          }};
}

}  // namespace schedlab::cli
