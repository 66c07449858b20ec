#pragma once
// Internal to the report reader (report_reader.cpp, report_read_results.cpp): the one object
// reader's helpers by their short names, and the readers the two files share.

#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpuspec/reports/model/json_reader.hpp"
#include "gpuspec/reports/model/reference.hpp"
#include "gpuspec/reports/model/report_fields.hpp"
#include "gpuspec/reports/model/report_json.hpp"
#include "gpuspec/reports/model/report_names.hpp"
#include "gpuspec/reports/model/units.hpp"
#include "report_v1.hpp"

namespace gpuspec::reports::inline model::report_read {

using detail::describe;
using detail::element;
using detail::fail;
using detail::field_failure;
using detail::member_path;
using detail::object_reader;
using detail::path_ref;
using detail::quote;
using detail::read_array;
using detail::read_enum;
using detail::read_integer;
using detail::read_one_of;
using detail::read_string;

/// The strict reader of one object of the report, with its keys for the version.
object_reader reader(element e, const path_ref& path, std::string_view object, int minor);
/// One result (report_read_results.cpp).
result read_result(element e, const path_ref& path, int minor);
/// A device's MIG device and a result's reference to one (report_mig_json.cpp; v1.2).
mig_instance read_mig_instance(element e, const path_ref& path);
mig_ref read_mig_ref(element e, const path_ref& path);

} // namespace gpuspec::reports::model::report_read
