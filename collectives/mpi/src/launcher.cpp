#include "gpuspec/collectives/mpi/launcher.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <fstream>
#include <map>
#include <thread>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuspec/collectives/mpi/pairing.hpp"
#include "gpuspec/collectives/mpi/rank_merge.hpp"
#include "gpuspec/collectives/mpi/rank_messages.hpp"
#include "gpuspec/reports/judge/expectations.hpp"
#include "gpuspec/reports/model/report_json.hpp"

namespace gpuspec::collectives::mpi {

namespace {

// Message tags: hellos and replies go to rank 0, its answers and cases come back.
constexpr int tag_hello = 1;
constexpr int tag_control = 2; // welcome, case, stop: rank 0 to one rank, in order
constexpr int tag_reply = 3;

std::string utc_now() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

clock::time_point after(double seconds) {
  return clock::now() +
         std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(seconds));
}

/// Whether a process of this host is gone: no such pid, or a zombie waiting for its parent.
bool process_gone(long pid) {
  if (pid <= 0)
    return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
    return true;
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(stat, line))
    return true;
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

/// This rank's GPU's telemetry, sampled all through the run by the one-node worker's sampler
/// (host telemetry.hpp); each result gets its window's summary.
class rank_telemetry {
public:
  rank_telemetry(const node_view& node, const rank_assignment& self) {
    if (!self.device)
      return;
    m_device = self.device->index;
    if (self.device->sm_clock_max_mhz)
      m_sm_clock_max = *self.device->sm_clock_max_mhz;
    m_unavailable = node.telemetry_unavailable;
    if (!node.telemetry)
      return;
    try {
      if (auto source = node.telemetry())
        m_sampler = std::make_unique<host::telemetry_sampler>(
            std::move(source), std::vector<int>{m_device}, node.telemetry_period);
    } catch (const std::exception& e) {
      m_unavailable = fmt::format("no telemetry: the sampler could not start: {}", e.what());
    }
  }

  /// The summary of [begin, end] on this rank's GPU, or why there is none.
  [[nodiscard]] reports::telemetry_summary summary(clock::time_point begin, clock::time_point end) {
    if (!m_sampler) {
      reports::telemetry_summary t;
      t.status = m_unavailable;
      return t;
    }
    return m_sampler->summary(m_device, begin, end, m_sm_clock_max);
  }

private:
  int m_device = 0;
  std::optional<double> m_sm_clock_max;
  std::string m_unavailable;
  std::unique_ptr<host::telemetry_sampler> m_sampler;
};

reports::result measure_case(const measure_backend& backend, const rank_context& ctx,
                             const mpi_case& c);

/// What a rank measures for a case, with its GPU's telemetry over the measure's window (from
/// its start to its reply, communicator set-up and check included) for a result that ran.
reports::result measured_case(const measure_backend& backend, const rank_context& ctx,
                              const mpi_case& c, rank_telemetry& telemetry) {
  const auto begin = clock::now();
  auto r = measure_case(backend, ctx, c);
  if (r.status == reports::result_status::ok || !r.samples.empty())
    r.telemetry = telemetry.summary(begin, clock::now());
  return r;
}

/// What a rank measures for a case: skipped with the reason when nothing can run here.
reports::result measure_case(const measure_backend& backend, const rank_context& ctx,
                             const mpi_case& c) {
  if (!backend.unavailable_reason.empty())
    return skipped_result(c, ctx, backend.unavailable_reason);
  if (!ctx.self.device)
    return skipped_result(c, ctx, ctx.self.no_device_reason);
  if (c.group.size() < 2)
    return skipped_result(c, ctx, "a single GPU in the job: a collective needs two ranks");
  try {
    return backend.measure(ctx, c);
  } catch (const std::exception& e) {
    auto r = skipped_result(c, ctx, fmt::format("the measure threw: {}", e.what()));
    r.status = reports::result_status::failed;
    r.failure = reports::failure_kind::benchmark;
    return r;
  }
}

rank_context context_for(const mpi_world& world, const rank_assignment& self, const mpi_case& c) {
  rank_context ctx;
  ctx.rank = world.rank();
  ctx.nranks = world.size();
  ctx.self = self;
  const auto it = std::find(c.group.begin(), c.group.end(), world.rank());
  ctx.group_rank = static_cast<int>(it - c.group.begin());
  ctx.group_size = static_cast<int>(c.group.size());
  if (auto id = unique_id_from_hex(c.nccl_unique_id_hex))
    ctx.unique_id = *id;
  ctx.deadline = after(c.deadline_s + c.init_allowance_s);
  return ctx;
}

bool in_group(const mpi_case& c, int rank) {
  return std::find(c.group.begin(), c.group.end(), rank) != c.group.end();
}

/// The hooks of docs/multi-node.md ("Test hooks"): nothing unless the environment asks.
void apply_test_hooks(const test_hooks& hooks, int rank, int case_index,
                      const std::atomic<bool>& stop) {
  if (case_index != hooks.at_case)
    return;
  if (hooks.kill_rank && *hooks.kill_rank == rank)
    ::raise(SIGKILL);
  if (hooks.stall_rank && *hooks.stall_rank == rank)
    for (int i = 0; i < 6000 && !stop.load(); ++i) // at most 10 minutes, until ended
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

// ---------------------------------------------------------------------------------------------
// Rank 0.

class root_rank {
public:
  root_rank(mpi_world& world, const launcher_options& options, const node_view& node,
            const measure_backend& backend, const std::atomic<bool>& stop)
      : m_world(world), m_options(options), m_node(node), m_backend(backend), m_stop(stop) {
    m_report.run.tool_version = options.tool_version;
    m_report.run.build = options.build;
    m_report.run.started_utc = utc_now();
    m_report.run.suite = options.pairwise ? "mpi-pairwise" : "mpi";
    m_report.run.command_line = options.command_line;
    m_report.run.backend = backend.name;
    m_report.host = node.host_info;
    m_report.devices = node.devices;
  }

  launcher_outcome run() {
    m_outcome.root = true;
    if (!gather_hellos() || !assign())
      return finish(false);
    const auto cases = schedule();
    if (cases.empty())
      return finish(false);
    // One communicator per group, reused case after case: a group keeps its NCCL id while its
    // cases end with every rank ok; any other end makes a new one (a rank may have aborted its
    // communicator), and the first case with an id gives the ranks time to make it.
    std::map<std::vector<int>, std::string> ids;
    for (auto c : cases) {
      auto& id = ids[c.group];
      if (id.empty()) {
        if (auto made = m_backend.make_unique_id ? m_backend.make_unique_id() : std::nullopt)
          id = to_hex(*made);
        c.init_allowance_s = id.empty() ? 0.0 : m_options.bootstrap_timeout_s;
      }
      c.nccl_unique_id_hex = id;
      if (!run_case(c))
        return finish(false);
      if (m_report.results.empty() || m_report.results.back().status != reports::result_status::ok)
        id.clear();
      save("run in progress: " + fmt::format("{} of {} cases done", c.index + 1, cases.size()));
    }
    tell_all({{"type", "stop"}});
    if (m_options.pairwise)
      name_slow_nodes();
    if (m_backend.name == "none") {
      m_incomplete = "nothing measured: " + m_backend.unavailable_reason;
      return finish(false);
    }
    // A build that can measure, on ranks that could not (no GPU, NCCL refused): no pass
    // without evidence, as `gpuspec run` without a GPU.
    if (const auto* why = nothing_measured()) {
      m_incomplete = "nothing measured: " + *why;
      return finish(false);
    }
    return finish(true);
  }

private:
  /// Every rank's hello, rank 0's own first; false (and the report says why) when some rank
  /// did not say hello in time.
  bool gather_hellos() {
    m_hellos.resize(static_cast<std::size_t>(m_world.size()));
    m_hellos[0] = own_hello();
    std::vector<bool> arrived(m_hellos.size(), false);
    arrived[0] = true;
    const auto deadline = after(m_options.bootstrap_timeout_s);
    std::size_t count = 1;
    while (count < m_hellos.size()) {
      auto m = m_world.receive(-1, tag_hello, deadline, m_stop);
      if (!m)
        break;
      auto hello = hello_from_text(m->text, fmt::format("rank {}'s hello", m->source));
      if (!hello || hello.value().rank != m->source) {
        m_outcome.messages.push_back(
            fmt::format("rank {} sent a hello that is not one{}; it is left out", m->source,
                        hello ? " (another rank's)" : " (" + hello.error().to_string() + ")"));
        continue;
      }
      if (!arrived[static_cast<std::size_t>(m->source)])
        ++count;
      arrived[static_cast<std::size_t>(m->source)] = true;
      m_hellos[static_cast<std::size_t>(m->source)] = std::move(hello).value();
    }
    if (count == m_hellos.size())
      return true;
    std::vector<int> missing;
    for (std::size_t r = 0; r < arrived.size(); ++r)
      if (!arrived[r])
        missing.push_back(static_cast<int>(r));
    m_incomplete =
        fmt::format("rank{} {} of {} did not start within the {} s bootstrap deadline{}",
                    missing.size() == 1 ? "" : "s", fmt::join(missing, ", "), m_world.size(),
                    m_options.bootstrap_timeout_s, m_stop.load() ? " (stopped by a signal)" : "");
    m_outcome.abort_others = true;
    return false;
  }

  rank_hello own_hello() const {
    rank_hello h;
    h.rank = 0;
    h.host = m_node.host;
    h.pid = static_cast<long>(::getpid());
    h.local_rank = local_rank_from_environment(process_environment());
    h.host_info = m_node.host_info;
    h.devices = m_node.devices;
    h.no_gpu_reason = m_node.no_gpu_reason;
    return h;
  }

  /// The GPUs by rank; false when a host has more ranks than GPUs (bad usage: exit 3).
  bool assign() {
    auto outcome = assign_ranks(m_hellos);
    nlohmann::ordered_json welcome = {{"type", "welcome"}, {"error", outcome.error}};
    if (!outcome.error.empty()) {
      m_incomplete = outcome.error;
      m_outcome.messages.push_back(outcome.error);
      m_outcome.unknown = true;
      tell_all(welcome);
      return false;
    }
    m_ranks = std::move(outcome.ranks);
    m_telemetry = std::make_unique<rank_telemetry>(m_node, m_ranks.front());
    m_report.nodes = other_nodes(m_hellos, m_ranks, m_node.host);
    auto ranks = nlohmann::ordered_json::array();
    for (const auto& a : m_ranks)
      ranks.push_back(to_json(a));
    welcome["ranks"] = std::move(ranks);
    tell_all(welcome);
    // The run's GPUs are this node's GPUs of the job (the report's inventory is this node's).
    for (const auto& a : m_ranks)
      if (a.host == m_node.host && a.device)
        m_report.run.devices.push_back(a.device->index);
    std::sort(m_report.run.devices.begin(), m_report.run.devices.end());
    return true;
  }

  std::vector<mpi_case> schedule() {
    std::vector<int> everyone;
    for (int r = 0; r < m_world.size(); ++r)
      everyone.push_back(r);
    if (!m_options.pairwise)
      return plan_cases(m_options.plan, everyone);
    const auto hosts = hosts_of(m_ranks);
    if (hosts.size() < 2) {
      m_incomplete = fmt::format("--pairwise: one node ({}): nothing to pair", hosts.front());
      m_outcome.messages.push_back(m_incomplete);
      tell_all({{"type", "stop"}});
      return {};
    }
    std::vector<mpi_case> out;
    for (const auto& round :
         pairing_schedule(static_cast<int>(hosts.size()), m_options.max_all_pairs_nodes))
      for (const auto& [a, b] : round) {
        std::vector<int> group;
        for (const auto& r : m_ranks)
          if (r.host == hosts[static_cast<std::size_t>(a)] ||
              r.host == hosts[static_cast<std::size_t>(b)])
            group.push_back(r.rank);
        auto cases = plan_cases(m_options.plan, group,
                                hosts[static_cast<std::size_t>(a)] + "+" +
                                    hosts[static_cast<std::size_t>(b)],
                                static_cast<int>(out.size()));
        out.insert(out.end(), cases.begin(), cases.end());
      }
    return out;
  }

  /// One case: sent to every rank, measured here, every reply awaited until the deadline.
  bool run_case(const mpi_case& c) {
    const auto deadline = after(c.deadline_s + c.init_allowance_s);
    case_replies got;
    got.answered.assign(static_cast<std::size_t>(m_world.size()), false);
    send_case(c, deadline, got);
    const auto& self = m_ranks.front();
    if (in_group(c, 0))
      got.replies.push_back(
          {0, measured_case(m_backend, context_for(m_world, self, c), c, *m_telemetry)});
    got.answered[0] = true;
    for (const auto& l : got.lost)
      got.answered[static_cast<std::size_t>(l.rank)] = true;
    collect_replies(c, deadline, got);
    std::sort(got.replies.begin(), got.replies.end(),
              [](const rank_reply& a, const rank_reply& b) { return a.rank < b.rank; });

    const std::vector<missing_rank> missing = missing_of(got);
    if (missing.empty()) {
      auto merged = merge_case(c, got.replies, m_ranks, m_node.host);
      if (merged.status == reports::result_status::ok)
        attach_ceiling(merged, c, m_ranks, m_hellos, m_options.specs);
      m_report.results.push_back(std::move(merged));
      return true;
    }
    fail_case(c, missing, got);
    return false;
  }

  /// What rank 0 has of one case's replies.
  struct case_replies {
    std::vector<bool> answered; ///< per rank: replied, acknowledged, or lost
    std::vector<rank_reply> replies;
    std::vector<missing_rank> lost; ///< a send that failed: the peer is gone
  };

  /// The case to every other rank; a send that fails marks the peer lost.
  void send_case(const mpi_case& c, std::chrono::steady_clock::time_point deadline,
                 case_replies& got) {
    const nlohmann::ordered_json message = {{"type", "case"}, {"case", to_json(c)}};
    const std::string text = message.dump();
    for (int r = 1; r < m_world.size(); ++r)
      if (auto why = m_world.send(r, tag_control, text, deadline, m_stop))
        got.lost.push_back({r, false, "rank 0 could not send it the case: " + *why});
  }

  /// Every reply until each rank answered or the deadline passed.
  void collect_replies(const mpi_case& c, std::chrono::steady_clock::time_point deadline,
                       case_replies& got) {
    auto waiting = [&] { return std::count(got.answered.begin(), got.answered.end(), false) > 0; };
    while (waiting()) {
      auto m = m_world.receive(-1, tag_reply, deadline, m_stop);
      if (!m)
        break;
      const std::string source = fmt::format("rank {}", m->source);
      const auto reply = reply_from_text(m->text, source);
      if (!reply || reply.value().index != c.index) {
        m_outcome.messages.push_back(
            fmt::format("rank {} sent a reply that is not one for case {}{}", m->source, c.index,
                        reply ? "" : " (" + reply.error().to_string() + ")"));
        continue;
      }
      got.answered[static_cast<std::size_t>(m->source)] = true;
      if (!in_group(c, m->source))
        continue; // an acknowledgement: it was not in this case's group
      auto result = reports::result_from_json(reply.value().result, source, "result");
      if (!result) {
        auto bad =
            skipped_result(c, {}, "its reply is not a result: " + result.error().to_string());
        bad.status = reports::result_status::failed;
        bad.failure = reports::failure_kind::worker_protocol;
        got.replies.push_back({m->source, std::move(bad)});
      } else {
        got.replies.push_back({m->source, std::move(result.value())});
      }
    }
  }

  /// The ranks that did not answer (and why, where this node can tell), and those lost, by rank.
  [[nodiscard]] std::vector<missing_rank> missing_of(const case_replies& got) const {
    std::vector<missing_rank> missing;
    for (int r = 1; r < m_world.size(); ++r) {
      if (got.answered[static_cast<std::size_t>(r)]) {
        const auto l = std::find_if(got.lost.begin(), got.lost.end(),
                                    [&](const missing_rank& x) { return x.rank == r; });
        if (l != got.lost.end())
          missing.push_back(*l);
        continue;
      }
      missing_rank m{r, false, ""};
      const auto& hello = m_hellos[static_cast<std::size_t>(r)];
      if (hello.host == m_node.host) {
        m.died = process_gone(hello.pid);
        m.detail = m.died ? fmt::format("its process (pid {}) has died", hello.pid)
                          : fmt::format("its process (pid {}) is alive but silent", hello.pid);
      }
      missing.push_back(std::move(m));
    }
    std::sort(missing.begin(), missing.end(),
              [](const missing_rank& a, const missing_rank& b) { return a.rank < b.rank; });
    return missing;
  }

  /// A case some rank did not answer: its failed result, and the job ended.
  void fail_case(const mpi_case& c, const std::vector<missing_rank>& missing,
                 const case_replies& got) {
    const bool stopped = m_stop.load();
    const std::string ended_by =
        stopped ? "the launcher stopped the job (SIGTERM: mpirun and srun end a job one of whose "
                  "ranks died)"
                : fmt::format("its {} s deadline passed", c.deadline_s);
    auto failed = missing_ranks_result(c, missing, got.replies, m_ranks, m_node.host, ended_by);
    m_incomplete = failed.reason;
    m_outcome.messages.push_back(failed.reason);
    m_report.results.push_back(std::move(failed));
    if (!stopped) {
      // The ranks that answered go home; the others are ended once the report is written.
      for (int r = 1; r < m_world.size(); ++r)
        if (got.answered[static_cast<std::size_t>(r)])
          (void)m_world.send(r, tag_control, R"({"type":"stop"})", after(1.0), m_stop);
      m_outcome.abort_others = true;
    } else {
      m_world.abandon(); // the job is being ended: finalizing could wait for the dead rank
    }
  }

  /// --pairwise: for each case of the plan, the node its pairs point at (pairing.hpp), named
  /// in those results' observations and told to the operator.
  void name_slow_nodes() {
    const auto hosts = hosts_of(m_ranks);
    const auto node_of = [&](const std::string& host) {
      return static_cast<int>(std::find(hosts.begin(), hosts.end(), host) - hosts.begin());
    };
    std::map<std::string, std::vector<std::size_t>> by_case;
    for (std::size_t i = 0; i < m_report.results.size(); ++i)
      by_case[m_report.results[i].bench_id + m_report.results[i].axes.dump()].push_back(i);
    for (const auto& [key, indices] : by_case) {
      std::vector<pair_figure> figures;
      for (const auto i : indices) {
        const auto& r = m_report.results[i];
        const auto pair = r.observations.value("pair", std::string());
        const auto plus = pair.find('+');
        if (r.status != reports::result_status::ok || plus == std::string::npos ||
            !(r.stats.median > 0))
          continue;
        figures.push_back({node_of(pair.substr(0, plus)), node_of(pair.substr(plus + 1)),
                           r.higher_is_better ? r.stats.median : 1.0 / r.stats.median});
      }
      // The siblings' threshold of the check's settings: one bound for "slower than its peers".
      const auto slow = find_slow_node(figures, static_cast<int>(hosts.size()),
                                       reports::expectation_settings{}.sibling_threshold);
      if (!slow)
        continue;
      const auto& host = hosts[static_cast<std::size_t>(slow->node)];
      for (const auto i : indices)
        m_report.results[i].observations["slow_node"] = host;
      m_outcome.messages.push_back(
          fmt::format("--pairwise: {} {}: node {} makes its pairs slow ({:.1f}% behind the others)",
                      m_report.results[indices.front()].bench_id,
                      m_report.results[indices.front()].axes.dump(), host, 100 * slow->behind));
    }
  }

  /// A control message to every other rank, each send bounded by the bootstrap deadline.
  void tell_all(const nlohmann::ordered_json& message) {
    const std::string text = message.dump();
    for (int r = 1; r < m_world.size(); ++r)
      if (auto why =
              m_world.send(r, tag_control, text, after(m_options.bootstrap_timeout_s), m_stop)) {
        m_outcome.messages.push_back(fmt::format("rank {}: {}", r, *why));
        m_outcome.abort_others = true;
      }
  }

  /// The first result's reason when no result was measured (none ok or failed); else null.
  [[nodiscard]] const std::string* nothing_measured() const {
    for (const auto& r : m_report.results)
      if (r.status == reports::result_status::ok || r.status == reports::result_status::failed)
        return nullptr;
    return m_report.results.empty() ? nullptr : &m_report.results.front().reason;
  }

  void save(const std::string& incomplete_reason) {
    m_report.complete = false;
    m_report.incomplete_reason = incomplete_reason;
    m_report.run.finished_utc = utc_now();
    reports::save_report(m_options.output, m_report);
  }

  launcher_outcome finish(bool complete) {
    m_report.run.finished_utc = utc_now();
    m_report.complete = complete;
    m_report.incomplete_reason = complete ? "" : m_incomplete;
    if (m_backend.name != "none" && !m_report.run.devices.empty())
      m_report.run.concurrency = static_cast<int>(m_report.run.devices.size());
    try {
      reports::save_report(m_options.output, m_report);
      m_outcome.report = m_report;
    } catch (const std::exception& e) {
      m_outcome.messages.push_back(fmt::format("the report could not be written to {}: {}",
                                               m_options.output.string(), e.what()));
      m_outcome.unknown = true;
    }
    return std::move(m_outcome);
  }

  mpi_world& m_world;
  const launcher_options& m_options;
  const node_view& m_node;
  const measure_backend& m_backend;
  const std::atomic<bool>& m_stop;
  reports::report m_report;
  std::vector<rank_hello> m_hellos;
  std::vector<rank_assignment> m_ranks;
  std::unique_ptr<rank_telemetry> m_telemetry;
  std::string m_incomplete;
  launcher_outcome m_outcome;
};

// ---------------------------------------------------------------------------------------------
// Every other rank.

launcher_outcome run_other(mpi_world& world, const launcher_options& options, const node_view& node,
                           const measure_backend& backend, const std::atomic<bool>& stop) {
  launcher_outcome out;
  const auto lost_root = [&](const std::string& why) {
    out.messages.push_back(fmt::format("rank {}: {}", world.rank(), why));
    out.unknown = true;
    world.abandon(); // rank 0 is gone or stuck: finalizing could wait for it
    return out;
  };

  rank_hello hello;
  hello.rank = world.rank();
  hello.host = node.host;
  hello.pid = static_cast<long>(::getpid());
  hello.local_rank = local_rank_from_environment(process_environment());
  hello.host_info = node.host_info;
  hello.devices = node.devices;
  hello.no_gpu_reason = node.no_gpu_reason;
  if (auto why =
          world.send(0, tag_hello, to_json(hello).dump(), after(options.bootstrap_timeout_s), stop))
    return lost_root("could not say hello to rank 0: " + *why);

  auto next = [&](double seconds) -> std::optional<std::string> {
    auto m = world.receive(0, tag_control, after(seconds), stop);
    if (!m)
      return std::nullopt;
    return std::move(m->text);
  };
  const auto text = next(options.bootstrap_timeout_s);
  if (!text)
    return lost_root(stop.load() ? "stopped by a signal before rank 0 answered"
                                 : "rank 0 did not answer within the bootstrap deadline");
  const auto welcome = welcome_from_text(*text);
  if (!welcome)
    return lost_root("rank 0's answer is not a welcome (" + welcome.error().to_string() + ")");
  if (const auto& error = welcome.value().error; !error.empty()) {
    out.messages.push_back(error);
    out.unknown = true;
    return out;
  }
  std::optional<rank_assignment> self;
  for (const auto& a : welcome.value().ranks)
    if (a.rank == world.rank())
      self = a;
  if (!self)
    return lost_root("rank 0's answer does not assign this rank");
  rank_telemetry telemetry(node, *self);

  // Rank 0 sends the next case once every rank has answered this one, or the case's deadline
  // has passed: waiting longer than that (plus the bootstrap allowance) means rank 0 is lost.
  double wait_s = options.bootstrap_timeout_s;
  while (true) {
    const auto message = next(wait_s);
    if (!message)
      return lost_root(stop.load() ? "stopped by a signal"
                                   : fmt::format("no word from rank 0 within {} s", wait_s));
    const auto control = control_from_text(*message);
    if (!control)
      return lost_root("rank 0 sent a message that is not a case (" + control.error().to_string() +
                       ")");
    if (control.value().stop)
      return out;
    const mpi_case& c = control.value().measure;
    apply_test_hooks(options.hooks, world.rank(), c.index, stop);
    nlohmann::ordered_json reply = {{"index", c.index}, {"result", nullptr}};
    if (in_group(c, world.rank()))
      reply["result"] = reports::result_to_json(
          measured_case(backend, context_for(world, *self, c), c, telemetry));
    if (auto why = world.send(0, tag_reply, reply.dump(), after(c.deadline_s), stop))
      return lost_root("could not send its reply to rank 0: " + *why);
    wait_s = c.deadline_s + c.init_allowance_s + options.bootstrap_timeout_s;
  }
}

} // namespace

test_hooks test_hooks_from_environment(const environment_lookup& env) {
  test_hooks h;
  const auto number = [&](const char* name) -> std::optional<int> {
    const auto v = env(name);
    if (!v || v->empty() || v->size() > 6 ||
        !std::all_of(v->begin(), v->end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    return std::stoi(*v);
  };
  h.kill_rank = number("GPUSPEC_MPI_TEST_KILL_RANK");
  h.stall_rank = number("GPUSPEC_MPI_TEST_STALL_RANK");
  h.at_case = number("GPUSPEC_MPI_TEST_AT_CASE").value_or(1);
  return h;
}

launcher_outcome run_launcher(mpi_world& world, const launcher_options& options,
                              const node_view& node, const measure_backend& backend,
                              const std::atomic<bool>& stop) {
  if (world.rank() == 0)
    return root_rank(world, options, node, backend, stop).run();
  return run_other(world, options, node, backend, stop);
}

} // namespace gpuspec::collectives::mpi
