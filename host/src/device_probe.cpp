// GPU inventory and error counters through NVML. Each query is asked on its own: one failing
// query empties its field and is named in `problems`, the others still answer. A GPU that has
// fallen off the bus (NVML_ERROR_GPU_IS_LOST) is asked nothing more after the first such answer,
// since every further query would fail the same way (and may each wait on a timeout).

#include "gpuspec/host/device_probe.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "gpuspec/host/mig_probe.hpp"
#include "gpuspec/host/pci_bus_id.hpp"
#include "gpuspec/reports/judge/host_rules.hpp"

namespace gpuspec::host {
namespace {

using reports::reading;

/// Calls an entry point, or answers FUNCTION_NOT_FOUND when the driver lacks it.
template <class Fn, class... Args> nvmlReturn_t call(Fn fn, Args... args) {
  return fn == nullptr ? NVML_ERROR_FUNCTION_NOT_FOUND : fn(args...);
}

/// NOT_SUPPORTED, or an entry point this driver does not have: either way the GPU cannot say.
bool unsupported(nvmlReturn_t status) {
  return status == NVML_ERROR_NOT_SUPPORTED || status == NVML_ERROR_FUNCTION_NOT_FOUND;
}

std::string status_text(const nvml_library& nvml, nvmlReturn_t status) {
  if (status == NVML_ERROR_FUNCTION_NOT_FOUND)
    return "not exported by this driver";
  return nvml.error_text(status);
}

std::string mode_text(nvmlEnableState_t state) {
  return state == NVML_FEATURE_ENABLED ? "enabled" : "disabled";
}

/// The queries of one device, with the problems they meet.
class device_queries {
public:
  device_queries(const nvml_library& nvml, std::vector<std::string>& problems)
      : m_nvml(nvml), m_problems(problems) {}

  /// True when `fn(args...)` succeeded; otherwise the problem is recorded under `query`.
  template <class Fn, class... Args> bool ask(std::string_view query, Fn fn, Args... args) {
    if (m_lost)
      return false;
    const nvmlReturn_t status = call(fn, args...);
    if (status == NVML_SUCCESS)
      return true;
    record(query, status);
    return false;
  }

  /// For modes, where "not supported" is itself the answer: returns the status, and records
  /// a problem only for a real failure.
  template <class Fn, class... Args>
  nvmlReturn_t ask_mode(std::string_view query, Fn fn, Args... args) {
    if (m_lost)
      return NVML_ERROR_GPU_IS_LOST;
    const nvmlReturn_t status = call(fn, args...);
    if (status != NVML_SUCCESS && !unsupported(status))
      record(query, status);
    return status;
  }

  void record(std::string_view query, nvmlReturn_t status) {
    if (status == NVML_ERROR_GPU_IS_LOST) {
      m_lost = true;
      m_problems.push_back(
          fmt::format("{}: {} (further queries skipped)", query, status_text(m_nvml, status)));
    } else {
      m_problems.push_back(fmt::format("{}: {}", query, status_text(m_nvml, status)));
    }
  }

  /// A string query into a buffer of `Size` bytes.
  template <std::size_t Size, class Fn>
  std::string ask_string(std::string_view query, Fn fn, nvmlDevice_t device) {
    std::array<char, Size> buffer{};
    if (!ask(query, fn, device, buffer.data(), static_cast<unsigned>(buffer.size())))
      return {};
    buffer.back() = '\0';
    return buffer.data();
  }

private:
  const nvml_library& m_nvml;
  std::vector<std::string>& m_problems;
  bool m_lost = false;
};

constexpr std::array counter_names = {"ecc.volatile.corrected",
                                      "ecc.volatile.uncorrected",
                                      "ecc.aggregate.corrected",
                                      "ecc.aggregate.uncorrected",
                                      "retired_pages.single_bit",
                                      "retired_pages.double_bit",
                                      "retired_pages.pending",
                                      "remapped_rows.correctable",
                                      "remapped_rows.uncorrectable",
                                      "remapped_rows.pending",
                                      "remapped_rows.failure",
                                      "pcie.replay",
                                      "nvlink.links_active",
                                      "nvlink.crc_flit",
                                      "nvlink.crc_data",
                                      "nvlink.replay",
                                      "nvlink.recovery"};

/// Values that are states, not running counts: their delta may go down (a link dropping).
bool is_state_value(std::string_view name) {
  return name == "nvlink.links_active" || name == "retired_pages.pending" ||
         name == "remapped_rows.pending" || name == "remapped_rows.failure";
}

/// Reads the counters of one device; after GPU_IS_LOST every remaining counter is
/// "unavailable" without asking again.
class counter_reader {
public:
  explicit counter_reader(const nvml_library& nvml) : m_nvml(nvml) {}

  /// The reading of a call that fills `value` on success.
  template <class Value, class Fn, class... Args> reading read(Value& value, Fn fn, Args... args) {
    if (m_lost)
      return reading::unavailable(m_lost_text);
    const nvmlReturn_t status = call(fn, args...);
    if (status == NVML_SUCCESS)
      return reading::of(static_cast<std::int64_t>(value));
    return failed(status);
  }

  reading failed(nvmlReturn_t status) {
    if (unsupported(status))
      return reading::not_supported();
    const std::string text = m_nvml.error_text(status);
    if (status == NVML_ERROR_GPU_IS_LOST) {
      m_lost = true;
      m_lost_text = text;
    }
    return reading::unavailable(text);
  }

  [[nodiscard]] bool lost() const { return m_lost; }
  [[nodiscard]] const std::string& lost_text() const { return m_lost_text; }

private:
  const nvml_library& m_nvml;
  bool m_lost = false;
  std::string m_lost_text;
};

void read_nvlink(const nvml_api& api, nvmlDevice_t device, counter_reader& reader,
                 reports::counter_set& counters) {
  static constexpr std::pair<const char*, nvmlNvLinkErrorCounter_t> link_counters[] = {
      {"nvlink.crc_flit", NVML_NVLINK_ERROR_DL_CRC_FLIT},
      {"nvlink.crc_data", NVML_NVLINK_ERROR_DL_CRC_DATA},
      {"nvlink.replay", NVML_NVLINK_ERROR_DL_REPLAY},
      {"nvlink.recovery", NVML_NVLINK_ERROR_DL_RECOVERY},
  };
  const auto set_all = [&](const reading& r) {
    counters["nvlink.links_active"] = r;
    for (const auto& [name, kind] : link_counters)
      counters[name] = r;
  };
  if (reader.lost()) {
    set_all(reading::unavailable(reader.lost_text()));
    return;
  }

  std::vector<unsigned> active;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    nvmlEnableState_t state = NVML_FEATURE_DISABLED;
    const nvmlReturn_t status = call(api.nvlink_state, device, link, &state);
    if (status == NVML_SUCCESS) {
      if (state == NVML_FEATURE_ENABLED)
        active.push_back(link);
      continue;
    }
    if (link == 0) { // no NVLink at all, or it cannot be read
      set_all(reader.failed(status));
      return;
    }
    if (unsupported(status) || status == NVML_ERROR_INVALID_ARGUMENT)
      break; // past the last link this GPU has
    set_all(reader.failed(status));
    return;
  }
  counters["nvlink.links_active"] = reading::of(static_cast<std::int64_t>(active.size()));

  for (const auto& [name, kind] : link_counters) {
    std::int64_t sum = 0;
    std::optional<reading> trouble; // the first failure other than "not supported"
    bool any_value = false, any_unsupported = false;
    for (const unsigned link : active) {
      unsigned long long value = 0;
      const nvmlReturn_t status = call(api.nvlink_error_counter, device, link, kind, &value);
      if (status == NVML_SUCCESS) {
        sum += static_cast<std::int64_t>(value);
        any_value = true;
      } else if (unsupported(status)) {
        any_unsupported = true;
      } else if (!trouble) {
        trouble = reader.failed(status);
      }
    }
    if (trouble)
      counters[name] = *trouble;
    else if (any_unsupported && !any_value)
      counters[name] = reading::not_supported();
    else
      counters[name] = reading::of(sum); // over the active links; 0 when none is active
  }
}

/// One GPU of the driver's /proc list.
struct driver_gpu {
  std::string bus_id; ///< normalized ("0000:3b:00.0")
  std::string model, uuid;
  std::filesystem::path file;
};

/// "Key:   value" of an information file; "" when absent.
std::string info_field(const std::string& text, std::string_view key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0 || line.size() <= key.size() || line[key.size()] != ':')
      continue;
    std::string value = line.substr(key.size() + 1);
    const auto first = value.find_first_not_of(" \t");
    const auto last = value.find_last_not_of(" \t\r");
    return first == std::string::npos ? "" : value.substr(first, last - first + 1);
  }
  return "";
}

std::vector<driver_gpu> driver_gpus(const std::filesystem::path& root) {
  std::vector<driver_gpu> out;
  std::error_code ec;
  const auto dir = root / "proc/driver/nvidia/gpus";
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    driver_gpu g;
    g.bus_id = normalize_pci_bus_id(it->path().filename().string());
    if (g.bus_id.empty())
      continue;
    g.file = it->path() / "information";
    std::ifstream in(g.file);
    std::stringstream text;
    text << in.rdbuf();
    g.model = info_field(text.str(), "Model");
    g.uuid = info_field(text.str(), "GPU UUID");
    // The driver writes question marks for what it cannot read from a GPU.
    if (g.uuid.find('?') != std::string::npos)
      g.uuid.clear();
    if (g.model.find('?') != std::string::npos)
      g.model.clear();
    out.push_back(std::move(g));
  }
  std::sort(out.begin(), out.end(),
            [](const driver_gpu& a, const driver_gpu& b) { return a.bus_id < b.bus_id; });
  return out;
}

/// NVML's bus id form ("00000000:3B:00.0") of a normalized one ("0000:3b:00.0").
std::string nvml_bus_id(const std::string& normalized) {
  std::string upper = normalized;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return "0000" + upper;
}

} // namespace

void identify_lost_devices(std::vector<reports::device_info>& devices,
                           const std::filesystem::path& root) {
  std::vector<reports::device_info*> nameless;
  std::set<std::string> answered;
  for (auto& d : devices) {
    if (!d.pci_bus_id.empty())
      answered.insert(normalize_pci_bus_id(d.pci_bus_id));
    else if (reports::gpu_is_lost(d))
      nameless.push_back(&d);
  }
  if (nameless.empty())
    return;
  const std::vector<driver_gpu> all = driver_gpus(root);
  std::vector<const driver_gpu*> unclaimed;
  for (const auto& g : all)
    if (!answered.contains(g.bus_id))
      unclaimed.push_back(&g);

  // NVML's order is the bus order on every GPU that answered, and every GPU is in both lists.
  const bool bus_order = all.size() == devices.size() &&
                         std::all_of(devices.begin(), devices.end(), [&](const auto& d) {
                           return d.pci_bus_id.empty() ||
                                  (d.index >= 0 && static_cast<std::size_t>(d.index) < all.size() &&
                                   all[static_cast<std::size_t>(d.index)].bus_id ==
                                       normalize_pci_bus_id(d.pci_bus_id));
                         });
  const auto identify = [](reports::device_info& d, const driver_gpu& g, std::string_view how) {
    d.pci_bus_id = nvml_bus_id(g.bus_id);
    if (d.name.empty())
      d.name = g.model;
    if (d.uuid.empty())
      d.uuid = g.uuid;
    d.problems.push_back(
        fmt::format("identity from {} ({}): NVML lost the GPU", g.file.string(), how));
  };
  if (nameless.size() == 1 && unclaimed.size() == 1) {
    identify(*nameless.front(), *unclaimed.front(), "the one GPU of the driver NVML did not name");
    return;
  }
  if (bus_order && nameless.size() == unclaimed.size()) {
    for (auto* d : nameless)
      identify(*d, all[static_cast<std::size_t>(d->index)], "NVML's order is the bus order");
    return;
  }
  for (auto* d : nameless)
    d->problems.push_back(fmt::format(
        "identity unknown: NVML lost the GPU, and {} of the driver's {} GPUs ({}) are not one "
        "NVML named, for {} lost GPU(s)",
        unclaimed.size(), all.size(), (root / "proc/driver/nvidia/gpus").string(),
        nameless.size()));
}

void probe_driver_versions(const nvml_library& nvml, reports::host_info& host) {
  const nvml_api& api = nvml.api();
  std::array<char, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE> buffer{};
  if (call(api.system_driver_version, buffer.data(), static_cast<unsigned>(buffer.size())) ==
      NVML_SUCCESS) {
    buffer.back() = '\0';
    host.driver_version = buffer.data();
  }
  int cuda = 0;
  if (call(api.system_cuda_driver_version, &cuda) == NVML_SUCCESS && cuda > 0)
    host.cuda_driver_version = fmt::format("{}.{}", cuda / 1000, (cuda % 1000) / 10);
}

reports::counter_set read_error_counters(const nvml_library& nvml, int index) {
  const nvml_api& api = nvml.api();
  reports::counter_set counters;

  nvmlDevice_t device = nullptr;
  const nvmlReturn_t handle_status =
      call(api.handle_by_index, static_cast<unsigned>(index), &device);
  if (handle_status != NVML_SUCCESS) {
    const reading r = reading::unavailable(nvml.error_text(handle_status));
    for (const char* name : counter_names)
      counters[name] = r;
    return counters;
  }

  counter_reader reader(nvml);
  for (const auto& [where, location] :
       {std::pair{"volatile", NVML_VOLATILE_ECC}, std::pair{"aggregate", NVML_AGGREGATE_ECC}}) {
    for (const auto& [what, type] :
         {std::pair{"corrected", NVML_MEMORY_ERROR_TYPE_CORRECTED},
          std::pair{"uncorrected", NVML_MEMORY_ERROR_TYPE_UNCORRECTED}}) {
      unsigned long long value = 0;
      counters[fmt::format("ecc.{}.{}", where, what)] =
          reader.read(value, api.total_ecc_errors, device, type, location, &value);
    }
  }

  // Retired pages: a count query (no address buffer). NVML answers INSUFFICIENT_SIZE with the
  // count filled in when there are pages and no room for their addresses.
  for (const auto& [name, cause] :
       {std::pair{"retired_pages.single_bit",
                  NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS},
        std::pair{"retired_pages.double_bit", NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR}}) {
    if (reader.lost()) {
      counters[name] = reading::unavailable(reader.lost_text());
      continue;
    }
    unsigned count = 0;
    const nvmlReturn_t status =
        call(api.retired_pages, device, cause, &count, static_cast<unsigned long long*>(nullptr));
    counters[name] = status == NVML_SUCCESS || status == NVML_ERROR_INSUFFICIENT_SIZE
                         ? reading::of(count)
                         : reader.failed(status);
  }
  {
    nvmlEnableState_t pending = NVML_FEATURE_DISABLED;
    reading r = reader.read(pending, api.retired_pages_pending, device, &pending);
    counters["retired_pages.pending"] = r;
  }

  {
    unsigned correctable = 0, uncorrectable = 0, pending = 0, failure = 0;
    const reading r = reader.read(correctable, api.remapped_rows, device, &correctable,
                                  &uncorrectable, &pending, &failure);
    if (r.value) {
      counters["remapped_rows.correctable"] = reading::of(correctable);
      counters["remapped_rows.uncorrectable"] = reading::of(uncorrectable);
      counters["remapped_rows.pending"] = reading::of(pending != 0 ? 1 : 0);
      counters["remapped_rows.failure"] = reading::of(failure != 0 ? 1 : 0);
    } else {
      for (const char* name : {"remapped_rows.correctable", "remapped_rows.uncorrectable",
                               "remapped_rows.pending", "remapped_rows.failure"})
        counters[name] = r;
    }
  }

  {
    unsigned replays = 0;
    counters["pcie.replay"] = reader.read(replays, api.pcie_replay_counter, device, &replays);
  }

  read_nvlink(api, device, reader, counters);
  return counters;
}

reports::counter_set counter_delta(const reports::counter_set& before,
                                   const reports::counter_set& after) {
  std::set<std::string> names;
  for (const auto& [name, r] : before)
    names.insert(name);
  for (const auto& [name, r] : after)
    names.insert(name);

  reports::counter_set delta;
  for (const std::string& name : names) {
    const auto b = before.find(name);
    const auto a = after.find(name);
    if (b == before.end()) {
      delta[name] = reading::unavailable("no reading before the run");
    } else if (a == after.end()) {
      delta[name] = reading::unavailable("no reading after the run");
    } else if (a->second.value && b->second.value) {
      const std::int64_t d = *a->second.value - *b->second.value;
      if (d < 0 && !is_state_value(name))
        delta[name] = reading::unavailable("the counter went backwards (reset during the run?)");
      else
        delta[name] = reading::of(d);
    } else if (a->second.status == "not supported" || b->second.status == "not supported") {
      delta[name] = reading::not_supported();
    } else {
      // Unavailable on one side: say which, in its own words.
      delta[name] = !b->second.value ? b->second : a->second;
    }
  }
  return delta;
}

namespace {

/// An unsigned query of `device` (`fn(device, args..., &value)`), as an int; nullopt when it
/// fails, which `q` records.
template <class Fn, class... Args>
std::optional<int> ask_uint(device_queries& q, std::string_view query, Fn fn, nvmlDevice_t device,
                            Args... args) {
  unsigned value = 0;
  if (!q.ask(query, fn, device, args..., &value))
    return std::nullopt;
  return static_cast<int>(value);
}

/// Name, UUID, serial, VBIOS, PCI identity, compute capability and memory size.
void probe_identity(const nvml_api& api, device_queries& q, nvmlDevice_t device,
                    reports::device_info& d) {
  d.name = q.ask_string<NVML_DEVICE_NAME_V2_BUFFER_SIZE>("nvmlDeviceGetName", api.name, device);
  d.uuid = q.ask_string<NVML_DEVICE_UUID_V2_BUFFER_SIZE>("nvmlDeviceGetUUID", api.uuid, device);
  d.serial =
      q.ask_string<NVML_DEVICE_SERIAL_BUFFER_SIZE>("nvmlDeviceGetSerial", api.serial, device);
  d.vbios = q.ask_string<NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE>("nvmlDeviceGetVbiosVersion",
                                                                api.vbios, device);

  nvmlPciInfo_t pci{};
  if (q.ask("nvmlDeviceGetPciInfo_v3", api.pci_info, device, &pci)) {
    pci.busId[sizeof(pci.busId) - 1] = '\0';
    d.pci_bus_id = pci.busId;
    d.pci_device_id = pci.pciDeviceId >> 16; // the low half is the vendor, 0x10de
    d.pci_subsystem_id = pci.pciSubSystemId;
  }

  int major = 0, minor = 0;
  if (q.ask("nvmlDeviceGetCudaComputeCapability", api.compute_capability, device, &major, &minor)) {
    d.cc_major = major;
    d.cc_minor = minor;
  }

  nvmlMemory_t memory{};
  if (q.ask("nvmlDeviceGetMemoryInfo", api.memory_info, device, &memory))
    d.memory_bytes = static_cast<std::int64_t>(memory.total);
}

/// SM and memory clocks, the memory bus width, and the PCIe link now and at its maxima.
void probe_clocks_and_link(const nvml_api& api, device_queries& q, nvmlDevice_t device,
                           reports::device_info& d) {
  d.sm_clock_mhz = ask_uint(q, "nvmlDeviceGetClockInfo(SM)", api.clock_info, device, NVML_CLOCK_SM);
  d.sm_clock_max_mhz =
      ask_uint(q, "nvmlDeviceGetMaxClockInfo(SM)", api.max_clock_info, device, NVML_CLOCK_SM);
  d.mem_clock_mhz =
      ask_uint(q, "nvmlDeviceGetClockInfo(MEM)", api.clock_info, device, NVML_CLOCK_MEM);
  d.mem_clock_max_mhz =
      ask_uint(q, "nvmlDeviceGetMaxClockInfo(MEM)", api.max_clock_info, device, NVML_CLOCK_MEM);
  d.memory_bus_width_bits =
      ask_uint(q, "nvmlDeviceGetMemoryBusWidth", api.memory_bus_width, device);

  d.pcie.gen_current =
      ask_uint(q, "nvmlDeviceGetCurrPcieLinkGeneration", api.pcie_gen_current, device);
  // NVML's two maxima: the GPU's own (gen_max) and the one "possible with this device and
  // system" (gen_max_system), which a slot, riser or BIOS setting caps; below the GPU's, that
  // is the one idle reading that is not power saving (host_rules.hpp, gpu.pcie_slot). Drivers
  // before r510 lack the GPU's own: gen_max is then unknown, never the system's in its place
  // (the rules take the card's generation from the spec row).
  {
    unsigned gen = 0;
    if (call(api.gpu_pcie_gen_max, device, &gen) == NVML_SUCCESS)
      d.pcie.gen_max = static_cast<int>(gen);
    d.pcie.gen_max_system =
        ask_uint(q, "nvmlDeviceGetMaxPcieLinkGeneration", api.pcie_gen_max, device);
  }
  d.pcie.width_current =
      ask_uint(q, "nvmlDeviceGetCurrPcieLinkWidth", api.pcie_width_current, device);
  d.pcie.width_max = ask_uint(q, "nvmlDeviceGetMaxPcieLinkWidth", api.pcie_width_max, device);
}

/// The power limits (NVML speaks milliwatts), the temperature and the GPU's slowdown threshold.
void probe_power_and_temperature(const nvml_api& api, device_queries& q, nvmlDevice_t device,
                                 reports::device_info& d) {
  if (const auto mw = ask_uint(q, "nvmlDeviceGetPowerManagementLimit", api.power_limit, device))
    d.power_limit_w = *mw / 1000.0;
  if (const auto mw =
          ask_uint(q, "nvmlDeviceGetPowerManagementDefaultLimit", api.power_limit_default, device))
    d.power_limit_default_w = *mw / 1000.0;
  {
    unsigned min_mw = 0, max_mw = 0;
    if (q.ask("nvmlDeviceGetPowerManagementLimitConstraints", api.power_limit_constraints, device,
              &min_mw, &max_mw))
      d.power_limit_max_w = max_mw / 1000.0;
  }

  d.temperature_c =
      ask_uint(q, "nvmlDeviceGetTemperature(GPU)", api.temperature, device, NVML_TEMPERATURE_GPU);
  {
    // The GPU's own slowdown threshold, which the check's temperature rule warns near. A GPU
    // that does not report one is not a problem: the site limit still applies.
    unsigned threshold = 0;
    if (q.ask_mode("nvmlDeviceGetTemperatureThreshold(SLOWDOWN)", api.temperature_threshold, device,
                   NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &threshold) == NVML_SUCCESS)
      d.temperature_slowdown_c = static_cast<int>(threshold);
  }
}

/// ECC (current and pending), MIG and persistence modes; "not supported" is an answer here.
void probe_modes(const nvml_api& api, device_queries& q, nvmlDevice_t device,
                 reports::device_info& d) {
  {
    nvmlEnableState_t current = NVML_FEATURE_DISABLED, pending = NVML_FEATURE_DISABLED;
    const nvmlReturn_t s =
        q.ask_mode("nvmlDeviceGetEccMode", api.ecc_mode, device, &current, &pending);
    if (s == NVML_SUCCESS) {
      d.ecc_mode = mode_text(current);
      d.ecc_mode_pending = mode_text(pending);
    } else if (unsupported(s)) {
      d.ecc_mode = d.ecc_mode_pending = "not supported";
    }
  }
  {
    unsigned current = 0, pending = 0;
    const nvmlReturn_t s =
        q.ask_mode("nvmlDeviceGetMigMode", api.mig_mode, device, &current, &pending);
    const auto mig_text = [](unsigned mode) {
      return mode == NVML_DEVICE_MIG_ENABLE ? "enabled" : "disabled";
    };
    if (s == NVML_SUCCESS) {
      d.mig_mode = mig_text(current);
      // A change of MIG mode waits for a GPU reset (health: mig.pending_reset).
      if (pending != current)
        d.mig_mode_pending = mig_text(pending);
    } else if (unsupported(s))
      d.mig_mode = "not supported";
  }
  {
    nvmlEnableState_t mode = NVML_FEATURE_DISABLED;
    const nvmlReturn_t s =
        q.ask_mode("nvmlDeviceGetPersistenceMode", api.persistence_mode, device, &mode);
    if (s == NVML_SUCCESS)
      d.persistence_mode = mode_text(mode);
    else if (unsupported(s))
      d.persistence_mode = "not supported";
  }
}

/// The GPU's NVLink-C2C link to its CPU: NVML's C2C mode and addressing mode (r550+). Left
/// absent when NVML answered neither (an older driver, a PCIe GPU without HMM or ATS), so
/// reports of such GPUs do not change; "not supported" is an answer, not a problem.
void probe_c2c(const nvml_api& api, nvmlDevice_t device, reports::device_info& d) {
  if (api.c2c_mode_info == nullptr && api.addressing_mode == nullptr)
    return;
  reports::c2c_link c;
  unsigned enabled = 0;
  if (api.c2c_mode_info != nullptr) {
    const nvmlReturn_t s = api.c2c_mode_info(device, &enabled);
    c.mode = s == NVML_SUCCESS ? (enabled != 0 ? "enabled" : "disabled")
             : unsupported(s)  ? "not supported"
                               : "";
  }
  // nvmlDeviceAddressingMode_v1_t: {version, value}; the version is NVML_STRUCT_VERSION's
  // sizeof | 1 << 24.
  std::array<unsigned, 2> mode{static_cast<unsigned>(2 * sizeof(unsigned)) | (1U << 24), 0};
  if (api.addressing_mode != nullptr && api.addressing_mode(device, mode.data()) == NVML_SUCCESS)
    c.addressing_mode = mode[1] == 2 ? "ats" : mode[1] == 1 ? "hmm" : "none";
  if (enabled != 0 || c.mode == "disabled" || !c.addressing_mode.empty())
    d.c2c = c;
}

/// The 16 bytes of a fabric cluster UUID as 8-4-4-4-12 hex; "" for all zeros (not assigned).
std::string fabric_uuid_text(const unsigned char (&uuid)[NVML_GPU_FABRIC_UUID_LEN]) {
  if (std::all_of(std::begin(uuid), std::end(uuid), [](unsigned char c) { return c == 0; }))
    return "";
  std::string out;
  for (std::size_t i = 0; i < NVML_GPU_FABRIC_UUID_LEN; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      out += '-';
    out += fmt::format("{:02x}", uuid[i]);
  }
  return out;
}

/// The GPU's NVLink fabric (nvmlDeviceGetGpuFabricInfoV, v3 of the struct, else v2): absent when
/// NVML says the GPU has none (NOT_SUPPORTED, or the state NOT_SUPPORTED: no NVSwitch fabric).
void probe_fabric(const nvml_library& nvml, device_queries& q, nvmlDevice_t device,
                  reports::device_info& d) {
  const nvml_api& api = nvml.api();
  nvmlGpuFabricInfoV_t info{};
  info.version = nvmlGpuFabricInfo_v3;
  nvmlReturn_t s = call(api.gpu_fabric_info, device, &info);
  bool has_summary = s == NVML_SUCCESS;
  if (s == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) { // a driver that knows v2 only
    info = {};
    info.version = nvmlGpuFabricInfo_v2;
    s = call(api.gpu_fabric_info, device, &info);
  }
  if (s != NVML_SUCCESS) {
    // A lost GPU was recorded by the first query that met it.
    if (!unsupported(s) && s != NVML_ERROR_GPU_IS_LOST)
      q.record("nvmlDeviceGetGpuFabricInfoV", s);
    return;
  }
  static constexpr std::array<const char*, 4> states{"", "not_started", "in_progress", "completed"};
  if (info.state == NVML_GPU_FABRIC_STATE_NOT_SUPPORTED || info.state >= states.size())
    return;
  reports::gpu_fabric f;
  f.state = states.at(info.state);
  if (info.state == NVML_GPU_FABRIC_STATE_COMPLETED)
    f.status = info.status == NVML_SUCCESS ? "success" : status_text(nvml, info.status);
  f.cluster_uuid = fabric_uuid_text(info.clusterUuid);
  f.clique_id = info.cliqueId;
  f.health_mask = info.healthMask;
  if (has_summary) {
    static constexpr std::array<const char*, 4> summaries{"", "healthy", "unhealthy",
                                                          "limited_capacity"};
    f.health_summary =
        info.healthSummary < summaries.size() ? summaries.at(info.healthSummary) : "";
  }
  d.fabric = std::move(f);
}

} // namespace

std::vector<reports::device_info> probe_devices(const nvml_library& nvml) {
  const nvml_api& api = nvml.api();
  std::vector<reports::device_info> devices;
  unsigned count = 0;
  if (call(api.device_count, &count) != NVML_SUCCESS)
    return devices;

  for (unsigned i = 0; i < count; ++i) {
    reports::device_info& d = devices.emplace_back();
    d.index = static_cast<int>(i);
    device_queries q(nvml, d.problems);

    nvmlDevice_t device = nullptr;
    if (q.ask("nvmlDeviceGetHandleByIndex_v2", api.handle_by_index, i, &device)) {
      probe_identity(api, q, device, d);
      probe_clocks_and_link(api, q, device, d);
      probe_power_and_temperature(api, q, device, d);
      probe_modes(api, q, device, d);
      probe_c2c(api, device, d);
      probe_fabric(nvml, q, device, d);
      if (d.mig_mode == "enabled")
        probe_mig(nvml, device, d);
    }
    d.counters_before = read_error_counters(nvml, d.index);
  }
  return devices;
}

} // namespace gpuspec::host
