// Small SVG pictures for the HTML report, written as text: rectangles,
// lines, polylines and labels, each with an optional tooltip (<title>).
// No scripts, no external files: the report works offline.
#ifndef RP_LIB_REPORT_SVG_H_
#define RP_LIB_REPORT_SVG_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rp::report {

// The report's colours for where time goes.
inline constexpr const char* kComputeColour = "#4e79a7";
inline constexpr const char* kMpiColour = "#f28e2b";
inline constexpr const char* kWaitColour = "#e15759";
inline constexpr const char* kPathColour = "#111111";

// <, >, & and quotes as entities.
std::string Escape(std::string_view text);

class Svg {
 public:
  Svg(double width, double height, std::string_view label);
  void Rect(double x, double y, double w, double h, std::string_view fill, std::string_view tip = {});
  void Line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1);
  void Polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke, double width);
  // anchor: "start", "middle" or "end".
  void Text(double x, double y, std::string_view text, std::string_view anchor = "start", double size = 11);
  std::string str() const { return body_ + "</svg>\n"; }

 private:
  std::string body_;
};

// A horizontal legend of (colour, name) swatches.
void Legend(Svg* svg, double x, double y, const std::vector<std::pair<std::string, std::string>>& items);

}  // namespace rp::report

#endif  // RP_LIB_REPORT_SVG_H_
