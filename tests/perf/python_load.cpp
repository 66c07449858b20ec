#include "python_load.hpp"

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include <fmt/format.h>

namespace gpuspec::perf {

std::optional<double> python_json_load_seconds(const std::vector<std::filesystem::path>& files,
                                               int repeats) {
  // The file list goes in a file: a thousand paths do not fit a command line everywhere.
  const auto list = std::filesystem::temp_directory_path() /
                    fmt::format("gpuspec-perf-files-{}.txt", files.size());
  {
    std::ofstream out(list);
    for (const auto& f : files)
      out << f.string() << '\n';
  }
  const std::string script = fmt::format("import json, time\n"
                                         "files = open('{}').read().split()\n"
                                         "best = float('inf')\n"
                                         "for _ in range({}):\n"
                                         "    t = time.perf_counter()\n"
                                         "    for f in files:\n"
                                         "        with open(f, 'rb') as s: json.load(s)\n"
                                         "    best = min(best, time.perf_counter() - t)\n"
                                         "print(best)\n",
                                         list.string(), repeats);
  const auto script_file = list.string() + ".py";
  std::ofstream(script_file) << script;
  const std::string command = "python3 " + script_file + " 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  if (!pipe)
    return std::nullopt;
  char buffer[64] = {};
  const bool read = std::fgets(buffer, sizeof buffer, pipe.get()) != nullptr;
  std::filesystem::remove(list);
  std::filesystem::remove(script_file);
  if (!read)
    return std::nullopt;
  try {
    return std::stod(buffer);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

} // namespace gpuspec::perf
