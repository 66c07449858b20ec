// Host CPU families and their root ports' PCIe generation (host_platforms.hpp).

#include "gpuspec/reports/judge/host_platforms.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace gpuspec::reports::inline judge {
namespace {

// Intel Xeon 6 (Granite Rapids and Sierra Forest: "Xeon 6" and a four-character number, no
// Gold or Platinum between). Intel's product pages give "PCI Express Revision 5.0" for every
// P-core Xeon 6 SKU, as the "Intel Product Specification Comparison" export of ark.intel.com
// lists them (the -B SKUs "Gen 4 | Gen 5"): at most Gen5. AMD EPYC 9004/9005 are left out
// until their product pages are opened.
constexpr host_pcie_platform xeon6{
    "Intel Xeon 6", 5,
    "Intel ARK, Intel Xeon 6 processors, \"PCI Express Revision 5.0\" (e.g. the Xeon 6776P of the "
    "DGX B300, https://www.intel.com/content/www/us/en/products/sku/243691/"
    "intel-xeon-6776p-processor-336m-cache-2-30-ghz/specifications.html; every Xeon 6 SKU of "
    "Intel's Product Specification Comparison export, Spec-ify/hwapi "
    "parsing/src/cpu/intel/chunks/17.csv)"};

std::string lowercase_model(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// "xeon(r) 6776p", "xeon 6980p", "xeon® 6960e+": the word after Xeon is 6, three digits and a
/// letter (a Xeon 6 processor number), not "gold" or "platinum".
bool is_xeon6(const std::string& model) {
  const auto at = model.find("xeon");
  if (at == std::string::npos)
    return false;
  std::size_t i = at + 4;
  if (model.compare(i, 3, "(r)") == 0)
    i += 3;
  else if (model.compare(i, 2, "\xc2\xae") == 0) // ®
    i += 2;
  while (i < model.size() && model[i] == ' ')
    ++i;
  if (i + 5 > model.size() || model[i] != '6')
    return false;
  for (std::size_t k = 1; k <= 3; ++k)
    if (!std::isdigit(static_cast<unsigned char>(model[i + k])))
      return false;
  return std::isalpha(static_cast<unsigned char>(model[i + 4])) != 0;
}

} // namespace

std::optional<host_pcie_platform> host_pcie_platform_of(std::string_view cpu_model) {
  if (is_xeon6(lowercase_model(cpu_model)))
    return xeon6;
  return std::nullopt;
}

} // namespace gpuspec::reports::inline judge
