#include "gpuspec/collectives/nccl_log_session.hpp"

#include <fstream>
#include <sstream>
#include <utility>

namespace gpuspec::collectives {

nccl_log_session::nccl_log_session(nccl_debug_setup setup, set_variable set, reset_log reset)
    : m_setup(std::move(setup)), m_set(std::move(set)), m_reset(std::move(reset)) {}

std::string nccl_log_session::why_no_probe() const {
  if (probes())
    return "";
  if (!m_setup.switchable)
    return "not recorded: NCCL's log is the user's (NCCL_DEBUG, NCCL_DEBUG_SUBSYS or "
           "NCCL_DEBUG_FILE set), so it is not switched for an untimed call";
  return "not recorded: this NCCL cannot switch its log after start (no ncclResetDebugInit, "
         "NCCL before 2.24), and a tuning line in every timed call would be timed";
}

void nccl_log_session::read_file(const std::string& path, std::uint64_t& offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return;
  in.seekg(static_cast<std::streamoff>(offset));
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  const auto last_newline = s.rfind('\n');
  if (last_newline == std::string::npos)
    return;
  s.resize(last_newline + 1); // a line still being written is read next time
  offset += s.size();
  auto fresh = read_nccl_debug_log(s);
  m_facts.connections.insert(m_facts.connections.end(), fresh.connections.begin(),
                             fresh.connections.end());
  if (!fresh.version.empty())
    m_facts.version = fresh.version;
  if (fresh.nvls_channels)
    m_facts.nvls_channels = fresh.nvls_channels;
  if (fresh.nvls_multicast)
    m_facts.nvls_multicast = fresh.nvls_multicast;
  m_choices.insert(m_choices.end(), fresh.choices.begin(), fresh.choices.end());
}

void nccl_log_session::tuning(bool on) {
  if (!probes())
    return;
  if (on) {
    m_set("NCCL_DEBUG_SUBSYS", std::string(probe_subsystems));
    m_set("NCCL_DEBUG_FILE", m_setup.probe_log_path);
    m_reset();
    return;
  }
  read_file(m_setup.log_path, m_offset);
  std::uint64_t from_start = 0;
  read_file(m_setup.probe_log_path, from_start);
  std::ofstream(m_setup.log_path, std::ios::trunc).close();
  m_offset = 0;
  m_set("NCCL_DEBUG_SUBSYS", std::string(timing_subsystems));
  m_set("NCCL_DEBUG_FILE", m_setup.log_path);
  m_reset();
}

std::vector<nccl_tuning_choice> nccl_log_session::read_new() {
  read_file(m_setup.log_path, m_offset);
  return std::exchange(m_choices, {});
}

} // namespace gpuspec::collectives
