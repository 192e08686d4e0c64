#include "lib/report/svg.h"

#include <cstdio>

namespace rp::report {
namespace {

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

std::string Escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

Svg::Svg(double width, double height, std::string_view label) {
  body_ = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(width) + "\" height=\"" + Num(height) +
          "\" viewBox=\"0 0 " + Num(width) + " " + Num(height) + "\" role=\"img\" aria-label=\"" + Escape(label) +
          "\" font-family=\"sans-serif\">\n";
}

void Svg::Rect(double x, double y, double w, double h, std::string_view fill, std::string_view tip) {
  body_ += "<rect x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" width=\"" + Num(w) + "\" height=\"" + Num(h) +
           "\" fill=\"" + std::string(fill) + "\"";
  body_ += tip.empty() ? "/>\n" : "><title>" + Escape(tip) + "</title></rect>\n";
}

void Svg::Line(double x1, double y1, double x2, double y2, std::string_view stroke, double width) {
  body_ += "<line x1=\"" + Num(x1) + "\" y1=\"" + Num(y1) + "\" x2=\"" + Num(x2) + "\" y2=\"" + Num(y2) +
           "\" stroke=\"" + std::string(stroke) + "\" stroke-width=\"" + Num(width) + "\"/>\n";
}

void Svg::Polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke, double width) {
  body_ += "<polyline fill=\"none\" stroke=\"" + std::string(stroke) + "\" stroke-width=\"" + Num(width) +
           "\" points=\"";
  for (const auto& [x, y] : points) body_ += Num(x) + "," + Num(y) + " ";
  body_ += "\"/>\n";
}

void Svg::Text(double x, double y, std::string_view text, std::string_view anchor, double size) {
  body_ += "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" font-size=\"" + Num(size) + "\" text-anchor=\"" +
           std::string(anchor) + "\">" + Escape(text) + "</text>\n";
}

void Legend(Svg* svg, double x, double y, const std::vector<std::pair<std::string, std::string>>& items) {
  for (const auto& [colour, name] : items) {
    svg->Rect(x, y - 9, 10, 10, colour);
    svg->Text(x + 14, y, name);
    x += 24 + 7.0 * static_cast<double>(name.size());
  }
}

}  // namespace rp::report
