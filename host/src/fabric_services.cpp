// The NVLink fabric's services from /proc and /etc (fabric_services.hpp).

#include "gpuspec/host/fabric_services.hpp"

#include <arpa/inet.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <optional>
#include <sstream>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "gpuspec/host/host_probe.hpp"

namespace gpuspec::host {

namespace {

/// The daemons' executable names: the file name of what /proc/<pid>/exe links to.
constexpr std::string_view fabric_manager_name = "nv-fabricmanager";
constexpr std::string_view imex_name = "nvidia-imex";

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// An address in inet_ntop's text form, or nullopt for text that is not one (a host name).
std::optional<std::string> canonical_address(std::string_view text) {
  const std::string s(text);
  std::array<unsigned char, 16> bytes{};
  std::array<char, INET6_ADDRSTRLEN> buffer{};
  for (const int family : {AF_INET, AF_INET6})
    if (inet_pton(family, s.c_str(), bytes.data()) == 1 &&
        inet_ntop(family, bytes.data(), buffer.data(), buffer.size()) != nullptr)
      return std::string(buffer.data());
  return std::nullopt;
}

/// The real and effective user ids of a /proc/<pid> folder's process, from its status file
/// ("Uid:\t0\t0\t0\t0": real, effective, saved, file system); nullopt when unreadable.
std::optional<std::pair<long, long>> process_uids(const std::filesystem::path& pid_dir) {
  const auto status = read_system_file(pid_dir / "status");
  if (!status)
    return std::nullopt;
  std::string_view rest = *status;
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    const std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (!line.starts_with("Uid:"))
      continue;
    long real = -1, effective = -1;
    std::istringstream fields{std::string(line.substr(4))};
    if (fields >> real >> effective)
      return std::pair{real, effective};
    return std::nullopt;
  }
  return std::nullopt;
}

/// The owner of a file, following links; nullopt when it cannot be stat'ed.
std::optional<uid_t> owner_of(const std::filesystem::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0)
    return std::nullopt;
  return st.st_uid;
}

/// What a /proc/<pid> folder's process is, as far as the daemons are concerned.
struct process_identity {
  std::string name;     ///< the executable's file name; "" when it is no daemon's
  bool by_name = false; ///< its exe link could not be read: named by comm, run by root
};

/// Which daemon a process is: its executable, the file /proc/<pid>/exe links to, named as the
/// daemon, owned by root, and run by root (real and effective uid 0). comm and argv[0] are
/// whatever the process's owner chose (`exec -a nv-fabricmanager sleep 60`): they name nothing.
/// Only where the exe link cannot be read (gpuspec runs unprivileged: a root process's link is
/// not ours to read) is a root process's comm taken, and said to be. `root_owner` is the owner
/// of the tree's "/": root on a host, whoever holds a fixture tree in tests.
process_identity identify(const std::filesystem::path& root, const std::filesystem::path& pid_dir,
                          uid_t root_owner) {
  const auto uids = process_uids(pid_dir);
  if (!uids || uids->first != 0 || uids->second != 0)
    return {}; // not run by root: whatever it is named, no daemon
  const auto exe = pid_dir / "exe";
  std::array<char, 4096> link{};
  const ssize_t n = ::readlink(exe.c_str(), link.data(), link.size() - 1);
  if (n < 0 && errno == ENOENT)
    return {}; // a kernel thread, or a process gone since the folder was listed
  if (n < 0) {
    const auto comm = read_system_file(pid_dir / "comm");
    return {comm ? std::string(trim_space(*comm)) : std::string(), true};
  }
  std::string target(link.data(), static_cast<std::size_t>(n));
  constexpr std::string_view deleted = " (deleted)"; // the package was updated under it
  if (target.ends_with(deleted))
    target.resize(target.size() - deleted.size());
  const std::filesystem::path target_path(target);
  // The file itself, in the tree read; else what the kernel's link resolves to (a binary
  // deleted by an update, or one in another mount namespace).
  auto owner = owner_of(root / target_path.relative_path());
  if (!owner)
    owner = owner_of(exe);
  if (!owner || *owner != root_owner)
    return {}; // a binary anyone but root may have written
  return {target_path.filename().string(), false};
}

bool is_daemon(const process_identity& p, std::string_view daemon) {
  // comm's 15-character cut of a longer name counts, for a root process whose exe is unread.
  return p.name == daemon ||
         (p.by_name && p.name.size() == 15 && daemon.size() > 15 && daemon.starts_with(p.name));
}

std::string describe(const std::string& pid, const process_identity& p) {
  return p.by_name ? fmt::format("{} ({}, run by root; its exe link not readable)", pid, p.name)
                   : fmt::format("{} ({})", pid, p.name);
}

/// The running daemons, from /proc/<pid>.
void read_processes(const std::filesystem::path& root, reports::fabric_services_reading& out) {
  const auto proc = root / "proc";
  out.source = proc.string();
  const auto root_owner = owner_of(root);
  if (!root_owner) {
    out.why = fmt::format("{}: cannot be read", root.string());
    return;
  }
  std::error_code ec;
  std::filesystem::directory_iterator it(proc, ec);
  if (ec) {
    out.why = fmt::format("{}: {}", out.source, ec.message());
    return;
  }
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec)
      break;
    const std::string pid = it->path().filename().string();
    if (pid.empty() ||
        !std::all_of(pid.begin(), pid.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
      continue;
    const auto process = identify(root, it->path(), *root_owner);
    if (is_daemon(process, fabric_manager_name))
      out.fabric_manager.push_back(describe(pid, process));
    else if (is_daemon(process, imex_name))
      out.imex.push_back(describe(pid, process));
  }
  if (ec) {
    out.why = fmt::format("{}: {}", out.source, ec.message());
    out.fabric_manager.clear();
    out.imex.clear();
    return;
  }
  std::sort(out.fabric_manager.begin(), out.fabric_manager.end());
  std::sort(out.imex.begin(), out.imex.end());
  out.read = true;
}

/// IMEX's configuration and node list, and the entry of the list that names this node.
void read_imex(const std::filesystem::path& root, const std::string& hostname,
               reports::fabric_services_reading& out) {
  const std::filesystem::path config = "/etc/nvidia-imex/config.cfg";
  const auto text = read_system_file(root / config.relative_path());
  if (!text)
    return; // IMEX is not configured here
  out.imex_config = config.string();
  std::string nodes_file = "/etc/nvidia-imex/nodes_config.cfg"; // the guide's default
  std::string_view rest = *text;
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    const std::string_view line = trim_space(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    constexpr std::string_view key = "IMEX_NODE_CONFIG_FILE=";
    if (line.starts_with(key) && !trim_space(line.substr(key.size())).empty())
      nodes_file = std::string(trim_space(line.substr(key.size())));
  }
  out.imex_nodes_file = nodes_file;
  const auto nodes = read_system_file(root / std::filesystem::path(nodes_file).relative_path());
  if (!nodes) {
    out.imex_nodes_why = fmt::format("{} cannot be read", nodes_file);
    return;
  }
  out.imex_nodes_read = true;
  out.imex_nodes = parse_imex_nodes(*nodes);
  const std::string host = lower(hostname);
  const std::string short_host = host.substr(0, host.find('.'));
  for (const auto& entry : out.imex_nodes) {
    const auto address = canonical_address(entry);
    const bool mine = address
                          ? std::find(out.node_addresses.begin(), out.node_addresses.end(),
                                      *address) != out.node_addresses.end()
                          : !host.empty() && (lower(entry) == host || lower(entry) == short_host);
    if (mine) {
      out.imex_node_entry = entry;
      return;
    }
  }
}

} // namespace

std::vector<std::string> parse_fib_trie_local(std::string_view fib_trie) {
  std::vector<std::string> out;
  std::string last;
  while (!fib_trie.empty()) {
    const auto end = fib_trie.find('\n');
    const std::string_view line = trim_space(fib_trie.substr(0, end));
    fib_trie = end == std::string_view::npos ? std::string_view() : fib_trie.substr(end + 1);
    if (line.starts_with("|-- ")) {
      last = std::string(trim_space(line.substr(4)));
    } else if (line.starts_with("/32 host LOCAL") && !last.empty()) {
      const auto a = canonical_address(last);
      if (a && !a->starts_with("127.") && std::find(out.begin(), out.end(), *a) == out.end())
        out.push_back(*a);
    }
  }
  return out;
}

std::vector<std::string> parse_if_inet6(std::string_view if_inet6) {
  std::vector<std::string> out;
  while (!if_inet6.empty()) {
    const auto end = if_inet6.find('\n');
    const std::string_view line = trim_space(if_inet6.substr(0, end));
    if_inet6 = end == std::string_view::npos ? std::string_view() : if_inet6.substr(end + 1);
    // "fe800000000000000000000000000001 02 40 20 80 eth0": the address as 32 hex digits.
    const std::string_view hex = line.substr(0, line.find(' '));
    if (hex.size() != 32)
      continue;
    std::string text;
    for (std::size_t i = 0; i < 32; i += 4)
      text += std::string(i == 0 ? "" : ":") + std::string(hex.substr(i, 4));
    const auto a = canonical_address(text);
    if (a && *a != "::1" && std::find(out.begin(), out.end(), *a) == out.end())
      out.push_back(*a);
  }
  return out;
}

std::vector<std::string> parse_imex_nodes(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    line = trim_space(line.substr(0, line.find('#')));
    if (!line.empty())
      out.emplace_back(line);
  }
  return out;
}

reports::fabric_services_reading read_fabric_services(const std::filesystem::path& root,
                                                      const std::string& hostname) {
  reports::fabric_services_reading out;
  read_processes(root, out);
  if (const auto fib = read_system_file(root / "proc/net/fib_trie"))
    out.node_addresses = parse_fib_trie_local(*fib);
  if (const auto inet6 = read_system_file(root / "proc/net/if_inet6"))
    for (auto& a : parse_if_inet6(*inet6))
      out.node_addresses.push_back(std::move(a));
  read_imex(root, hostname, out);
  return out;
}

} // namespace gpuspec::host
