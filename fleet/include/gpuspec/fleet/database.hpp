#pragma once
/// The fleet database file (docs/fleet.md, "Schema"): opening it, and the schema it holds.
///
/// A gpuspec database is an SQLite file whose header says so: application_id 0x47505344
/// ("GPSD") and user_version the schema version (fleet_schema_version). Opening refuses, with
/// a db_error naming the file, anything else: a file that is not SQLite ("file is not a
/// database"), an SQLite file of another program (its application_id or its tables), and a
/// schema newer than this build reads. A new or empty file gets the schema; an older one opened
/// to write is migrated. Every connection
/// runs in WAL mode (one writer, many readers: `db history` reads while `db ingest` writes) with
/// a busy timeout, so a second writer waits its turn instead of failing at once.

#include <cstdint>
#include <filesystem>

#include "gpuspec/fleet/sqlite.hpp"

namespace gpuspec::fleet {

inline constexpr std::int64_t fleet_application_id = 0x47505344; // "GPSD"
/// The schema this build writes and reads (PRAGMA user_version). Version 1 is the first; 2 keeps
/// each report zstd-compressed (report_blob.hpp); 3 keeps what belongs to a run, a node or a
/// GPU once, the result rows referring to it by integer id, with views `gpus` and `results`
/// of version 2's columns. A version-1 or version-2 file is read as it is by a query (the
/// queries read those two names, tables there) and migrated in place, in one transaction, when
/// opened to write.
inline constexpr std::int64_t fleet_schema_version = 3;

struct open_options {
  /// A missing file is created (ingest); readers refuse it (nothing to read).
  bool create = false;
  /// How long a writer waits for another writer's lock before failing with "database is
  /// locked" (initial policy: 10 s, longer than one report's transaction takes).
  int busy_timeout_ms = 10000;
  /// A query's: opened read-only, and nothing is left behind. With no write-ahead log beside
  /// the file (no writer has it open), as immutable (no lock, no -wal or -shm made, which would
  /// belong to whoever queried and block the next ingest); else through the writer's log,
  /// read-only. A read-only file or folder is read either way.
  bool read_only = false;
};

/// Opens (and with `create`, initialises) a fleet database; throws db_error naming the file.
[[nodiscard]] connection open_fleet_db(const std::filesystem::path& file,
                                       const open_options& options = {});

} // namespace gpuspec::fleet
