// The CUDA probe of MIG devices (cuda_probe.hpp): the worker's one-line answer, and the health
// command's side, which starts one probe per MIG device, all at once, under one timeout.

#include "gpuspec/spine/cuda_probe.hpp"

#include <poll.h>
#include <signal.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuspec/reports/model/json_reader.hpp"
#include "gpuspec/spine/child_process.hpp"
#include "gpuspec/spine/protocol.hpp"
#include "gpuspec/spine/worker.hpp"

namespace gpuspec::spine {

namespace {

using reports::detail::element;
using reports::detail::object_reader;
using reports::detail::presence;

constexpr std::array<std::string_view, 5> probe_answer_keys{"protocol", "backend", "devices",
                                                            "error", "uuid"};
/// The most of a probe's stdout and stderr kept: its answer is one short line.
constexpr std::size_t probe_output_bytes = 4096;

cuda_probe_answer read_probe_answer(element root) {
  const object_reader o(root, "", probe_answer_keys, presence::all_required);
  if (o.string("protocol") != protocol_version)
    reports::detail::fail(o.path_of("protocol"), fmt::format("expected \"{}\"", protocol_version));
  cuda_probe_answer a;
  a.backend = o.string("backend");
  a.devices = o.integer<int>("devices");
  a.error = o.string("error");
  a.uuid = o.string("uuid");
  return a;
}

/// One probe in flight.
struct running_probe {
  reports::mig_cuda_probe probe;
  std::optional<child_process> child;
  std::string out, err;
  std::chrono::steady_clock::time_point started;
  std::string gpu_uuid;
};

/// The last non-empty line of `text`.
std::string last_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.remove_suffix(1);
  const auto cut = text.rfind('\n');
  return std::string(cut == std::string_view::npos ? text : text.substr(cut + 1));
}

void keep(std::string& into, std::string_view bytes) {
  into.append(bytes.substr(0, probe_output_bytes - std::min(into.size(), probe_output_bytes)));
}

/// Reads what the probes wrote until each has closed its output or `deadline` passes.
void collect_output(std::vector<running_probe>& probes,
                    std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<running_probe*> owners;
    for (auto& p : probes)
      if (p.child)
        for (const int fd : {p.child->stdout_fd(), p.child->stderr_fd()})
          if (fd >= 0) {
            fds.push_back(pollfd{fd, POLLIN, 0});
            owners.push_back(&p);
          }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (fds.empty() || left.count() <= 0)
      return;
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(left.count(), 250))) <=
        0)
      continue; // a tick, or EINTR: the deadline is looked at again
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0)
        continue;
      running_probe& p = *owners[i];
      std::string bytes;
      const bool is_out = fds[i].fd == p.child->stdout_fd();
      (void)p.child->read_available(fds[i].fd, bytes);
      keep(is_out ? p.out : p.err, bytes);
    }
  }
}

/// The probe's outcome once its process ended (or was killed at the deadline).
void settle(running_probe& p, bool timed_out, reports::mig_cuda_probe_reading& reading) {
  const auto ended = std::chrono::steady_clock::now();
  auto& r = p.probe;
  r.seconds = std::chrono::duration<double>(ended - p.started).count();
  const std::string stderr_tail = last_line(p.err);
  if (timed_out) {
    r.outcome = reports::mig_probe_outcome::timed_out;
    r.detail = stderr_tail.empty() ? "" : "its last words: " + stderr_tail;
    return;
  }
  const exit_status status = p.child->wait();
  const auto newline = p.out.find('\n');
  auto answer = newline == std::string::npos
                    ? reports::outcome<cuda_probe_answer>(
                          reports::input_error{"the probe's stdout", "", "no complete line"})
                    : probe_answer_from_line(std::string_view(p.out).substr(0, newline),
                                             "the probe's answer");
  if (!answer || !status.clean()) {
    r.outcome = reports::mig_probe_outcome::no_answer;
    r.detail = fmt::format("the probe {}{}{}", status.describe(),
                           answer ? "" : "; no answer: " + answer.error().to_string(),
                           stderr_tail.empty() ? "" : "; its last words: " + stderr_tail);
    return;
  }
  const cuda_probe_answer& a = answer.value();
  if (a.backend == "none") { // a build without the CUDA runtime: it can say nothing of CUDA
    reading.run = false;
    reading.why = fmt::format("{} has no CUDA runtime: {}", reading.program, a.error);
  }
  r.cuda_devices = a.devices;
  r.cuda_error = a.error;
  r.uuid_seen = a.uuid;
  r.outcome = outcome_of(a, r.mig_uuid, p.gpu_uuid);
}

} // namespace

std::string probe_answer_line(const cuda_probe_answer& a) {
  const nlohmann::ordered_json j{{"protocol", protocol_version},
                                 {"backend", a.backend},
                                 {"devices", a.devices},
                                 {"error", a.error},
                                 {"uuid", a.uuid}};
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

reports::outcome<cuda_probe_answer> probe_answer_from_line(std::string_view line,
                                                           std::string_view source) {
  return reports::detail::read_json_text(line, source, "probe answer", read_probe_answer);
}

std::string uuid_digits(std::string_view uuid) {
  for (const std::string_view prefix : {"MIG-", "GPU-"})
    if (uuid.starts_with(prefix))
      uuid.remove_prefix(prefix.size());
  std::string out;
  for (const char c : uuid)
    if (std::isxdigit(static_cast<unsigned char>(c)) != 0)
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (c != '-')
      return std::string(uuid); // not a UUID: compared as written
  return out;
}

reports::mig_probe_outcome outcome_of(const cuda_probe_answer& a, std::string_view mig_uuid,
                                      std::string_view gpu_uuid) {
  if (!a.error.empty() || a.devices < 1)
    return reports::mig_probe_outcome::not_visible;
  const std::string seen = uuid_digits(a.uuid);
  if (seen.empty() || seen == uuid_digits(mig_uuid) ||
      (!gpu_uuid.empty() && seen == uuid_digits(gpu_uuid)))
    return reports::mig_probe_outcome::opened;
  return reports::mig_probe_outcome::other_device;
}

int worker_probe_main(const worker_backend& backend) {
  cuda_probe_answer answer;
  if (backend.probe)
    answer = backend.probe();
  else
    answer = {backend.name, 0, "this worker has no CUDA probe", ""};
  const std::string line = probe_answer_line(answer);
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
  return 0;
}

reports::mig_cuda_probe_reading probe_mig_devices(const std::vector<reports::device_info>& devices,
                                                  const std::vector<std::string>& command,
                                                  double timeout_s) {
  reports::mig_cuda_probe_reading reading;
  reading.run = true;
  reading.program = command.empty() ? std::string() : command.front();
  reading.timeout_s = timeout_s;
  const auto started = std::chrono::steady_clock::now();
  std::vector<running_probe> probes;
  for (const auto& d : devices)
    for (const auto& m : d.mig_instances) {
      if (m.uuid.empty())
        continue; // NVML gave no UUID: nothing to select it by
      running_probe p;
      p.probe.gpu = d.index;
      p.probe.mig_uuid = m.uuid;
      p.gpu_uuid = d.uuid;
      p.started = std::chrono::steady_clock::now();
      try {
        p.child = child_process::spawn(command, {"CUDA_VISIBLE_DEVICES=" + m.uuid});
        std::string nothing;
        (void)p.child->write_stdin(nothing); // the probe reads nothing: stdin closed
      } catch (const std::system_error& e) {
        p.probe.outcome = reports::mig_probe_outcome::no_answer;
        p.probe.detail = fmt::format("cannot be started: {}", e.what());
      }
      probes.push_back(std::move(p));
    }
  const auto deadline = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(timeout_s));
  collect_output(probes, deadline);
  for (auto& p : probes) {
    if (p.child) {
      // A probe that closed its output is ending; one still running at the deadline is killed.
      bool ended = p.child->poll_exit().has_value();
      while (!ended && p.child->stdout_fd() < 0 && p.child->stderr_fd() < 0 &&
             std::chrono::steady_clock::now() < deadline) {
        ::poll(nullptr, 0, 5);
        ended = p.child->poll_exit().has_value();
      }
      if (!ended)
        p.child->send_signal(SIGKILL);
      settle(p, !ended, reading);
    }
    reading.probes.push_back(std::move(p.probe));
  }
  reading.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return reading;
}

} // namespace gpuspec::spine
