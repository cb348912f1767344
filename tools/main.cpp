// The `fusebox` command-line program.
#include "cli_common.h"

#include <fusebox/error.h>

#include <iostream>

int main(int argc, char** argv) {
  using namespace fusebox;
  CLI::App app{"fusebox: a fusion compiler for NVIDIA GPUs with plugin passes and schedulers"};
  app.require_subcommand(1);
  app.set_version_flag("--version", [] { return cli::versionText(); });
  // CLI11's messages quote arguments as given: escape and shorten them.
  app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
    std::string message = displayText(e.what(), 300) + "\n";
    if (failed->get_help_ptr() != nullptr)
      message += "Run with " + failed->get_help_ptr()->get_name() + " for more information.\n";
    return message;
  });
  std::vector<cli::Command> commands = {cli::addRunCommand(app), cli::addPrintCommand(app),
                                        cli::addPluginsCommand(app), cli::addCompareCommand(app),
                                        cli::addBenchCommand(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help prints and exits 0; any other parse error is the user's.
    return app.exit(e) == 0 ? cli::kOk : cli::kUserError;
  }
  try {
    for (auto& command : commands)
      if (command.app->parsed()) return command.run();
    return cli::kInternalError;
  } catch (const UserError& e) {
    std::cerr << "error: " << displayMessage(e.what()) << "\n";
    return cli::kUserError;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << displayMessage(e.what()) << "\n";
    return cli::kInternalError;
  }
}
