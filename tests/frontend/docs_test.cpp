// docs/python-frontend.md lists every op the frontend knows.
#include <fusebox/frontend/python_definition.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace fusebox {
namespace {

// The known-op list, as the unknown-op error reports it.
std::vector<std::string> knownOps() {
  try {
    parsePythonDefinition("def f(fd):\n    T0 = fd.ops.no_such_op()\n", "x.py");
  } catch (const UserError& e) {
    std::string msg = e.what();
    size_t open = msg.find("(known: ");
    std::string list = msg.substr(open + 8, msg.rfind(')') - open - 8);
    std::vector<std::string> names;
    std::stringstream ss(list);
    std::string name;
    while (std::getline(ss, name, ',')) names.push_back(name.substr(name.find_first_not_of(' ')));
    return names;
  }
  return {};
}

TEST(Docs, PythonFrontendPageListsEveryOp) {
  std::ifstream in(std::string(FUSEBOX_SOURCE_DIR) + "/docs/python-frontend.md");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string doc = ss.str();
  ASSERT_FALSE(doc.empty());
  std::vector<std::string> ops = knownOps();
  EXPECT_GT(ops.size(), 90u);  // 44 unary + 25 binary + 4 ternary + the rest
  for (const std::string& op : ops)
    EXPECT_NE(doc.find("`" + op + "`"), std::string::npos) << op << " is not documented";
}

}  // namespace
}  // namespace fusebox
