// The stored report as a zstd frame (report_blob.hpp): compressing it at ingest, and reading it
// back with its size checked before anything is allocated.

#include "gpuspec/fleet/report_blob.hpp"

#include <zstd.h>

#include <memory>

#include <fmt/format.h>

namespace gpuspec::fleet {

namespace {

// zstd's default level: 80.8 kB of the healthy report become 3.8 kB; level 1 gives 3.8 kB too,
// level 19 3.5 kB at many times the time. The text is repetitive, so the level matters little.
constexpr int compression_level = ZSTD_CLEVEL_DEFAULT;

} // namespace

std::string compress_report(std::string_view json) {
  const std::unique_ptr<ZSTD_CCtx, std::size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(),
                                                                     ZSTD_freeCCtx);
  if (!cctx)
    throw db_error("compress a report: out of memory");
  // The content checksum (4 bytes): a flipped byte in the file is then an error on reading,
  // not a report that parses with another number in it.
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, compression_level);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1);
  std::string out(ZSTD_compressBound(json.size()), '\0');
  const std::size_t n =
      ZSTD_compress2(cctx.get(), out.data(), out.size(), json.data(), json.size());
  if (ZSTD_isError(n) != 0U)
    throw db_error(fmt::format("compress a report: {}", ZSTD_getErrorName(n)));
  out.resize(n);
  return out;
}

std::string decompress_report(std::string_view frame, std::string_view where) {
  const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (size == ZSTD_CONTENTSIZE_ERROR)
    throw db_error(fmt::format("{}: its stored report is corrupt (not a zstd frame)", where));
  if (size == ZSTD_CONTENTSIZE_UNKNOWN)
    throw db_error(fmt::format(
        "{}: its stored report is corrupt (the zstd frame does not state its size)", where));
  if (size > max_report_bytes)
    throw db_error(fmt::format("{}: its stored report claims {} bytes, more than the {} a report "
                               "may have: refused as corrupt",
                               where, size, max_report_bytes));
  std::string out(static_cast<std::size_t>(size), '\0');
  // Into exactly the stated size: a frame that holds more (a second frame, forged data) fails
  // here with "destination buffer too small" rather than growing anything.
  const std::size_t n = ZSTD_decompress(out.data(), out.size(), frame.data(), frame.size());
  if (ZSTD_isError(n) != 0U)
    throw db_error(
        fmt::format("{}: its stored report is corrupt (zstd: {})", where, ZSTD_getErrorName(n)));
  if (n != out.size())
    throw db_error(
        fmt::format("{}: its stored report is corrupt (it holds {} bytes, its frame states {})",
                    where, n, out.size()));
  return out;
}

std::string stored_report(const connection& db, std::string_view run_id) {
  auto s = db.prepare("SELECT report FROM runs WHERE run_id = ?1");
  s.bind(1, run_id);
  const std::string where = fmt::format("{}: run {}", db.file(), run_id);
  if (!s.step("read a report"))
    throw db_error(fmt::format("{}: no such run", where));
  // A version-1 row (or one not yet migrated) holds the text itself.
  return s.is_blob(0) ? decompress_report(s.bytes(0), where) : s.text(0);
}

} // namespace gpuspec::fleet
