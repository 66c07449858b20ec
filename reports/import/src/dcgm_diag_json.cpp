// dcgmi diag -j's document (NVIDIA/DCGM, nvvs/include/NvvsJsonStrings.h's keys):
// "DCGM GPU Diagnostic" (3.x; "DCGM Diagnostic" in 4.x) > "test_categories" > each "category"
// with its "tests", each test's "name" and its "results", one per GPU ("gpu_id", "gpu_ids", or
// 4.x's "entity_id") with "status", "info", and "warnings" ({"warning", "error_id"} or text);
// "version" and "Driver Version Detected" beside them.
//
// Read token by token rather than parsed whole, so that a document cut short (a post, a killed
// dcgmi) is read up to its cut and said to be truncated, and a line is known for every figure:
// posted documents are often cut or elided ({"..."}), and a strict parse would lose all of them.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "dcgm_diag.hpp"
#include "imported_report.hpp"

namespace gpuspec::reports::inline import::detail {
namespace {

/// One token of the document: punctuation, a string, or a bare scalar (number, true, null).
struct json_token {
  char kind = 0; ///< '{', '}', '[', ']', ':', ',', '"' (string), 's' (scalar)
  std::string text;
  std::size_t line = 0;
};

/// The document's tokens from its first '{' (dcgmi may print lines before it); an unterminated
/// string ends the tokens (a cut document).
std::vector<json_token> tokens_of(const std::vector<log_line>& lines) {
  std::vector<json_token> out;
  bool started = false;
  for (const auto& l : lines) {
    const auto text = l.text;
    std::size_t i = 0;
    if (!started) {
      i = text.find('{');
      if (i == std::string_view::npos)
        continue;
      started = true;
    }
    while (i < text.size()) {
      const char c = text[i];
      if (c == ' ' || c == '\t') {
        ++i;
      } else if (c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',') {
        out.push_back({c, {}, l.number});
        ++i;
      } else if (c == '"') {
        std::string s;
        ++i;
        bool closed = false;
        while (i < text.size()) {
          const char d = text[i++];
          if (d == '"') {
            closed = true;
            break;
          }
          if (d == '\\' && i < text.size()) {
            const char e = text[i++];
            s += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'u' ? '?' : e;
            if (e == 'u')
              i = std::min(text.size(), i + 4);
          } else {
            s += d;
          }
        }
        if (!closed)
          return out; // a string cut at the line's end: the document ends here
        out.push_back({'"', std::move(s), l.number});
      } else {
        const auto end = text.find_first_of(" \t,:{}[]\"", i);
        out.push_back({'s', std::string(text.substr(i, end - i)), l.number});
        i = end == std::string_view::npos ? text.size() : end;
      }
    }
  }
  return out;
}

/// An object or array being read: the key it sits under (an array's elements sit under the
/// array's key), its scalars by key, and what its results gather.
struct json_frame {
  bool object = false;
  std::string key;     ///< the key of this value in its parent (elements: the array's)
  std::string pending; ///< an object's last key, awaiting its value
  std::map<std::string, std::pair<std::string, std::size_t>> scalars;
  std::vector<std::string> warnings, info;
  std::vector<long long> error_ids;
  std::vector<int> gpus; ///< "gpu_ids" given as an array
  std::size_t line = 0;
};

std::string status_word(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!s.empty())
    s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

/// "0", "0,1,2", 3: the GPU indices of a result; empty for none (a result for every GPU).
std::vector<int> gpus_of(const std::string& text) {
  std::vector<int> out;
  std::string s = text;
  std::replace(s.begin(), s.end(), ',', ' ');
  for (const auto f : blank_fields(s))
    if (const auto v = integer_of(f); v && *v >= 0 && *v < 4096)
      out.push_back(static_cast<int>(*v));
  return out;
}

struct json_reader_state {
  parsed_diag p;
  std::string category, test;
  std::size_t test_line = 0;
  std::vector<json_frame> stack;

  dcgm_test& test_entry() {
    for (auto& t : p.tests)
      if (t.section == category && t.name == test)
        return t;
    dcgm_test t;
    t.section = category;
    t.name = test;
    t.line = test_line;
    p.tests.push_back(std::move(t));
    return p.tests.back();
  }

  /// A scalar or string `value` of key `key` in the top object, or an element of the top array.
  void value(const std::string& v, std::size_t line) {
    if (stack.empty())
      return;
    auto& top = stack.back();
    if (!top.object) {
      // An array of texts (info, warnings) or of GPU ids belongs to the object holding it.
      if (stack.size() >= 2) {
        auto& owner = stack[stack.size() - 2];
        if (top.key == "info")
          owner.info.push_back(v);
        else if (top.key == "warnings")
          owner.warnings.push_back(v);
        else if (top.key == "gpu_ids")
          for (const int g : gpus_of(v))
            owner.gpus.push_back(g);
        else if (top.key == "GPU Device IDs")
          if (const auto id = integer_of_hex(v))
            p.device_ids.push_back(*id);
      }
      return;
    }
    const std::string key = top.pending;
    top.pending.clear();
    if (key.empty())
      return;
    top.scalars[key] = {v, line};
    if (key == "category") {
      category = v;
    } else if (key == "name" && top.key == "tests") {
      test = v;
      test_line = line;
    } else if (key == "version" && stack.size() <= 2) {
      p.version = v;
    } else if (key == "Driver Version Detected") {
      p.driver = v;
    }
  }

  static std::optional<std::uint32_t> integer_of_hex(const std::string& s) {
    std::uint32_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v > 0xffff)
      return std::nullopt;
    return v;
  }

  /// An object ends: a warning joins its result; a result joins its test.
  void close_object(json_frame f) {
    if (f.key == "warnings" && stack.size() >= 2) {
      auto& result = stack[stack.size() - 2];
      if (const auto it = f.scalars.find("warning"); it != f.scalars.end())
        result.warnings.push_back(it->second.first);
      if (const auto it = f.scalars.find("error_id"); it != f.scalars.end())
        if (const auto id = integer_of(it->second.first))
          result.error_ids.push_back(*id);
      return;
    }
    if (f.key != "results" || !f.scalars.contains("status") || test.empty())
      return;
    std::vector<int> gpus = f.gpus;
    for (const char* key : {"gpu_id", "gpu_ids", "entity_id"})
      if (const auto it = f.scalars.find(key); it != f.scalars.end())
        for (const int g : gpus_of(it->second.first))
          gpus.push_back(g);
    if (const auto it = f.scalars.find("entity_group");
        it != f.scalars.end() && it->second.first != "GPU")
      return; // a result for a switch or a CPU, not a GPU
    if (const auto it = f.scalars.find("info"); it != f.scalars.end())
      f.info.push_back(it->second.first);
    if (const auto it = f.scalars.find("warning"); it != f.scalars.end())
      f.warnings.push_back(it->second.first);
    if (const auto it = f.scalars.find("error_id"); it != f.scalars.end())
      if (const auto id = integer_of(it->second.first))
        f.error_ids.push_back(*id);
    auto& t = test_entry();
    const std::string word = status_word(f.scalars.at("status").first);
    if (gpus.empty())
      gpus.push_back(-1);
    for (const int g : gpus) {
      t.result[g] = word;
      for (const auto id : f.error_ids)
        t.error_ids[g].push_back(id);
    }
    const std::string where =
        gpus.front() < 0 ? std::string() : fmt::format("GPU {}: ", fmt::join(gpus, ","));
    for (const auto& w : f.warnings)
      t.warnings.push_back(names_a_gpu(w) ? w : where + w);
    for (const auto& i : f.info)
      t.info.push_back(names_a_gpu(i) ? i : where + i);
  }
};

} // namespace

bool looks_like_dcgm_json(const std::vector<log_line>& lines) {
  for (const auto& l : lines) {
    const auto text = l.text;
    if (text.find("\"DCGM GPU Diagnostic\"") != std::string_view::npos ||
        text.find("\"DCGM Diagnostic\"") != std::string_view::npos)
      return true;
  }
  return false;
}

parsed_diag parse_dcgm_json(const std::vector<log_line>& lines) {
  json_reader_state s;
  s.p.json = true;
  bool expect_key = false;
  for (const auto& t : tokens_of(lines)) {
    auto* top = s.stack.empty() ? nullptr : &s.stack.back();
    switch (t.kind) {
    case '{':
    case '[': {
      json_frame f;
      f.object = t.kind == '{';
      f.line = t.line;
      if (top != nullptr) {
        f.key = top->object ? top->pending : top->key;
        if (top->object)
          top->pending.clear();
      }
      s.stack.push_back(std::move(f));
      expect_key = t.kind == '{';
      break;
    }
    case '}':
    case ']':
      if (top == nullptr || top->object != (t.kind == '}'))
        break; // a stray closer (an elided {"..."}): skipped
      {
        json_frame f = std::move(s.stack.back());
        s.stack.pop_back();
        if (f.object)
          s.close_object(std::move(f));
        if (s.stack.empty())
          s.p.closed = true;
      }
      expect_key = false;
      break;
    case ',':
      expect_key = top != nullptr && top->object;
      break;
    case ':':
      expect_key = false;
      break;
    default:
      if (top != nullptr && top->object && expect_key && t.kind == '"') {
        top->pending = t.text;
        expect_key = false;
      } else {
        s.value(t.text, t.line);
      }
    }
  }
  if (!s.stack.empty())
    s.p.closed = false;
  return s.p;
}

} // namespace gpuspec::reports::import::detail
