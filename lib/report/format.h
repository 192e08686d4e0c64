// Numbers as reports print them.
#ifndef RP_LIB_REPORT_FORMAT_H_
#define RP_LIB_REPORT_FORMAT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rp::report {

// A duration in the unit that keeps 3-4 significant digits: "17 ns",
// "3.210 us", "12.345 ms", "1.202 s".
std::string Duration(int64_t ns);
// Rows of cells, the first row the heading; rendered as aligned text (the
// first column left-aligned in 20, the others right-aligned in `width`) or
// a Markdown table.
using Table = std::vector<std::vector<std::string>>;
void TableText(const Table& rows, std::string* out, int width = 13);
void TableMarkdown(const Table& rows, std::string* out);
// A share as a percentage, right-aligned in 6 columns: " 50.3%".
std::string Percent(double share);
// `s` without its leading spaces: a right-aligned figure in running text.
std::string Trim(const std::string& s);
// The file name without its directories.
std::string_view BaseName(std::string_view path);
// A C++ function name as people say it: without namespaces but its class,
// template arguments and parameters ("LAMMPS_NS::PairLJCut::compute(int,
// int)" -> "PairLJCut::compute"). C and Fortran names stay as they are.
std::string ShortFunction(std::string_view name);

}  // namespace rp::report

#endif  // RP_LIB_REPORT_FORMAT_H_
