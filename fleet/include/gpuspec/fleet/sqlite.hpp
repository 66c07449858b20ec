#pragma once
/// A small owning wrapper over SQLite's C API (RAII, move-only; CONTRIBUTING.md, style 7): a
/// connection and its prepared statements. Every failure throws db_error, whose what() names the
/// database file, what was being done and SQLite's own message ("fleet.sqlite: insert a result:
/// database or disk is full").

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

struct sqlite3;
struct sqlite3_stmt;

namespace gpuspec::fleet {

/// A database that cannot be opened, read or written: the message names the file.
class db_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class statement {
public:
  statement(sqlite3_stmt* s, std::string file) : m_stmt(s), m_file(std::move(file)) {}
  statement(statement&& o) noexcept;
  statement& operator=(statement&& o) noexcept;
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;
  ~statement();

  /// Parameters count from 1, as in SQLite.
  statement& bind(int i, std::string_view text);
  statement& bind(int i, std::int64_t value);
  statement& bind(int i, int value) { return bind(i, static_cast<std::int64_t>(value)); }
  statement& bind(int i, double value);
  statement& bind(int i, const std::optional<double>& value);
  statement& bind(int i, const std::optional<int>& value);
  statement& bind_blob(int i, std::span<const double> values);
  /// Bytes as a BLOB (a compressed report), not as TEXT.
  statement& bind_bytes(int i, std::string_view bytes);
  statement& bind_null(int i);

  /// One step: true while it yields a row, false when done. Throws db_error naming `what`.
  bool step(const char* what);
  /// Runs a statement that yields no row, then resets it for the next bindings.
  void run(const char* what);
  void reset();

  [[nodiscard]] bool is_null(int column) const;
  [[nodiscard]] bool is_blob(int column) const;
  [[nodiscard]] std::string text(int column) const;
  [[nodiscard]] std::int64_t integer(int column) const;
  [[nodiscard]] double real(int column) const;
  [[nodiscard]] std::optional<double> optional_real(int column) const;
  [[nodiscard]] std::vector<double> doubles(int column) const; ///< a bind_blob column
  [[nodiscard]] std::string bytes(int column) const;           ///< a bind_bytes column
  /// The column as JSON: null, an integer, a number or a string (a blob is null).
  [[nodiscard]] nlohmann::ordered_json json(int column) const;

private:
  sqlite3_stmt* m_stmt = nullptr;
  std::string m_file;
};

class connection {
public:
  /// Opens `file` read-write (creating it when `create`); throws db_error naming the file.
  connection(const std::filesystem::path& file, bool create);
  /// Read-only, through a URI with `query` ("mode=ro", "immutable=1"): nothing is written.
  connection(const std::filesystem::path& file, std::string_view query);
  /// A string literal would pick the bool constructor (a pointer converts to bool before it
  /// makes a string_view): say std::string_view.
  connection(const std::filesystem::path& file, const char* query) = delete;
  connection(connection&& o) noexcept;
  connection& operator=(connection&& o) noexcept;
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;
  ~connection();

  /// Runs one or more statements that yield no rows.
  void exec(std::string_view sql, const char* what);
  [[nodiscard]] statement prepare(std::string_view sql) const;
  [[nodiscard]] const std::string& file() const { return m_file; }
  [[nodiscard]] sqlite3* handle() const { return m_db; }
  /// One integer from a query yielding one row (a PRAGMA's value, a count).
  [[nodiscard]] std::int64_t scalar(std::string_view sql, const char* what) const;

  /// "<file>: <what>: <SQLite's message>", as db_error.
  [[noreturn]] void fail(const char* what) const;

private:
  sqlite3* m_db = nullptr;
  std::string m_file;
};

/// A transaction that rolls back unless committed (BEGIN IMMEDIATE: the write lock is taken at
/// the start, so that two ingesters queue on the busy timeout rather than fail half-way).
class transaction {
public:
  explicit transaction(connection& db);
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  ~transaction();
  void commit();

private:
  connection& m_db;
  bool m_open = true;
};

} // namespace gpuspec::fleet
