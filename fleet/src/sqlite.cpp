// The SQLite wrapper (sqlite.hpp): every call checked, every error naming the file.

#include "gpuspec/fleet/sqlite.hpp"

#include <cstring>
#include <utility>

#include <fmt/format.h>
#include <sqlite3.h>

namespace gpuspec::fleet {

namespace {

[[noreturn]] void throw_error(sqlite3* db, const std::string& file, const char* what) {
  const char* message = db ? sqlite3_errmsg(db) : "out of memory";
  throw db_error(fmt::format("{}: {}: {}", file, what, message));
}

} // namespace

statement::statement(statement&& o) noexcept
    : m_stmt(std::exchange(o.m_stmt, nullptr)), m_file(std::move(o.m_file)) {}

statement& statement::operator=(statement&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(m_stmt);
    m_stmt = std::exchange(o.m_stmt, nullptr);
    m_file = std::move(o.m_file);
  }
  return *this;
}

statement::~statement() { sqlite3_finalize(m_stmt); }

namespace {
void check_bind(int rc, sqlite3_stmt* s, const std::string& file) {
  if (rc != SQLITE_OK)
    throw_error(sqlite3_db_handle(s), file, "bind a value");
}
} // namespace

statement& statement::bind(int i, std::string_view text) {
  check_bind(
      sqlite3_bind_text(m_stmt, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT),
      m_stmt, m_file);
  return *this;
}

statement& statement::bind(int i, std::int64_t value) {
  check_bind(sqlite3_bind_int64(m_stmt, i, value), m_stmt, m_file);
  return *this;
}

statement& statement::bind(int i, double value) {
  check_bind(sqlite3_bind_double(m_stmt, i, value), m_stmt, m_file);
  return *this;
}

statement& statement::bind(int i, const std::optional<double>& value) {
  return value ? bind(i, *value) : bind_null(i);
}

statement& statement::bind(int i, const std::optional<int>& value) {
  return value ? bind(i, static_cast<std::int64_t>(*value)) : bind_null(i);
}

statement& statement::bind_blob(int i, std::span<const double> values) {
  check_bind(sqlite3_bind_blob(m_stmt, i, values.data(), static_cast<int>(values.size_bytes()),
                               SQLITE_TRANSIENT),
             m_stmt, m_file);
  return *this;
}

statement& statement::bind_bytes(int i, std::string_view bytes) {
  check_bind(
      sqlite3_bind_blob(m_stmt, i, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT),
      m_stmt, m_file);
  return *this;
}

statement& statement::bind_null(int i) {
  check_bind(sqlite3_bind_null(m_stmt, i), m_stmt, m_file);
  return *this;
}

bool statement::step(const char* what) {
  const int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW)
    return true;
  if (rc == SQLITE_DONE)
    return false;
  // Reset before throwing, so that the statement can be bound again for the next report.
  const std::string message = sqlite3_errmsg(sqlite3_db_handle(m_stmt));
  sqlite3_reset(m_stmt);
  throw db_error(fmt::format("{}: {}: {}", m_file, what, message));
}

void statement::run(const char* what) {
  (void)step(what);
  reset();
}

void statement::reset() {
  sqlite3_reset(m_stmt);
  sqlite3_clear_bindings(m_stmt);
}

bool statement::is_null(int column) const {
  return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

bool statement::is_blob(int column) const {
  return sqlite3_column_type(m_stmt, column) == SQLITE_BLOB;
}

std::string statement::text(int column) const {
  const auto* p = sqlite3_column_text(m_stmt, column);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column)))
           : std::string();
}

std::int64_t statement::integer(int column) const { return sqlite3_column_int64(m_stmt, column); }

double statement::real(int column) const { return sqlite3_column_double(m_stmt, column); }

std::optional<double> statement::optional_real(int column) const {
  if (is_null(column))
    return std::nullopt;
  return real(column);
}

std::vector<double> statement::doubles(int column) const {
  const auto* p = sqlite3_column_blob(m_stmt, column);
  const auto bytes = static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column));
  std::vector<double> out(bytes / sizeof(double));
  if (p && !out.empty())
    std::memcpy(out.data(), p, out.size() * sizeof(double));
  return out;
}

std::string statement::bytes(int column) const {
  const auto* p = static_cast<const char*>(sqlite3_column_blob(m_stmt, column));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column)))
           : std::string();
}

nlohmann::ordered_json statement::json(int column) const {
  switch (sqlite3_column_type(m_stmt, column)) {
  case SQLITE_INTEGER:
    return integer(column);
  case SQLITE_FLOAT:
    return real(column);
  case SQLITE_TEXT:
    return text(column);
  default:
    return nullptr;
  }
}

connection::connection(const std::filesystem::path& file, bool create) : m_file(file.string()) {
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  const int rc = sqlite3_open_v2(m_file.c_str(), &m_db, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string message = m_db ? sqlite3_errmsg(m_db) : "out of memory";
    sqlite3_close(m_db);
    m_db = nullptr;
    throw db_error(fmt::format("{}: cannot open the database: {}", m_file, message));
  }
  sqlite3_extended_result_codes(m_db, 1);
}

connection::connection(const std::filesystem::path& file, std::string_view query)
    : m_file(file.string()) {
  // The path as a URI's: '%', '?' and '#' would end or escape it.
  std::string uri = "file:";
  for (const char c : std::filesystem::absolute(file).string()) {
    if (c == '%' || c == '?' || c == '#')
      uri += fmt::format("%{:02x}", static_cast<unsigned char>(c));
    else
      uri += c;
  }
  uri += '?';
  uri += query;
  const int rc =
      sqlite3_open_v2(uri.c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  if (rc != SQLITE_OK) {
    const std::string message = m_db ? sqlite3_errmsg(m_db) : "out of memory";
    sqlite3_close(m_db);
    m_db = nullptr;
    throw db_error(fmt::format("{}: cannot open the database: {}", m_file, message));
  }
  sqlite3_extended_result_codes(m_db, 1);
}

connection::connection(connection&& o) noexcept
    : m_db(std::exchange(o.m_db, nullptr)), m_file(std::move(o.m_file)) {}

connection& connection::operator=(connection&& o) noexcept {
  if (this != &o) {
    sqlite3_close(m_db);
    m_db = std::exchange(o.m_db, nullptr);
    m_file = std::move(o.m_file);
  }
  return *this;
}

connection::~connection() { sqlite3_close(m_db); }

void connection::exec(std::string_view sql, const char* what) {
  const std::string text(sql);
  if (sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
    fail(what);
}

statement connection::prepare(std::string_view sql) const {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &s, nullptr) != SQLITE_OK)
    fail("prepare a statement");
  return statement(s, m_file);
}

std::int64_t connection::scalar(std::string_view sql, const char* what) const {
  auto s = prepare(sql);
  if (!s.step(what))
    return 0;
  return s.integer(0);
}

void connection::fail(const char* what) const { throw_error(m_db, m_file, what); }

transaction::transaction(connection& db) : m_db(db) {
  m_db.exec("BEGIN IMMEDIATE", "begin a transaction (another ingest holds the database?)");
}

transaction::~transaction() {
  if (m_open)
    sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void transaction::commit() {
  m_db.exec("COMMIT", "commit");
  m_open = false;
}

} // namespace gpuspec::fleet
