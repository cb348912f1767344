// `fusebox print FILE.py`: the fusion IR (or the definition written back).
#include "cli_common.h"
#include "pass_options.h"

#include <fusebox/ir/printer.h>

#include <iostream>

namespace fusebox::cli {
namespace {

struct PrintOptions {
  std::string file;
  bool transforms = false;
  bool python = false;
  PassFlags passes;
};

int printCommand(const PrintOptions& o) {
  PythonDefinition def = parsePythonFile(o.file);
  PassFlags passes = o.passes;
  passes.print_transforms = o.transforms;  // dumps match the final print
  runPassPipeline(def.fusion, passes, std::cout, std::cerr);
  if (o.python) {
    PythonPrintOptions print_options;
    if (!def.function_name.empty()) print_options.function_name = def.function_name;
    print_options.inputs = def.inputs;
    std::cout << printPythonDefinition(*def.fusion, print_options);
  } else {
    IrPrintOptions print_options;
    print_options.transforms = o.transforms;
    std::cout << printFusion(*def.fusion, print_options);
  }
  return kOk;
}

}  // namespace

Command addPrintCommand(CLI::App& parent) {
  auto options = std::make_shared<PrintOptions>();
  CLI::App* app = parent.add_subcommand("print", "Print the fusion IR of an nvFuser Python "
                                                 "definition");
  app->add_option("file", options->file, "nvFuser Python definition or repro script")
      ->required()
      ->check(CLI::ExistingFile);
  app->add_flag("--transforms", options->transforms,
                "Add the transform section (allocation domains, contiguity, extents)");
  app->add_flag("--python", options->python,
                "Write the fusion back as an nvFuser Python repro script instead");
  addPassFlags(app, options->passes);
  return {app, [options] { return printCommand(*options); }};
}

}  // namespace fusebox::cli
