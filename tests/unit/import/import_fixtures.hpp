#pragma once
// The real logs of tests/fixtures/import, read for the importer tests.
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace gpuspec::test {

inline std::string import_fixture_path(const std::string& name) {
  return std::string(GPUSPEC_IMPORT_FIXTURES) + "/" + name;
}

inline std::string read_import_fixture(const std::string& name) {
  std::ifstream in(import_fixture_path(name), std::ios::binary);
  if (!in)
    throw std::runtime_error("missing fixture " + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace gpuspec::test
