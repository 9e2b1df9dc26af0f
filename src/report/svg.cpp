// SPDX-License-Identifier: GPL-2.0-only
#include "report/svg.h"

#include <fmt/format.h>

namespace schedlab::report {

std::string xml_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&#39;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

std::string px(double v) {
  std::string s = fmt::format("{:.2f}", v);
  return s == "-0.00" ? "0.00" : s;
}

Svg::Svg(double width, double height) {
  out_ = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n",
      px(width), px(height), px(width), px(height));
  open_.push_back("svg");
}

void Svg::attrs(const Attrs &a) {
  for (const auto &[k, v] : a) out_ += fmt::format(" {}=\"{}\"", k, xml_escape(v));
}

void Svg::open(std::string_view tag, const Attrs &a) {
  out_ += fmt::format("<{}", tag);
  attrs(a);
  out_ += ">\n";
  open_.emplace_back(tag);
}

void Svg::close() {
  if (open_.empty()) return;
  out_ += fmt::format("</{}>\n", open_.back());
  open_.pop_back();
}

void Svg::leaf(std::string_view tag, const Attrs &a) {
  out_ += fmt::format("<{}", tag);
  attrs(a);
  out_ += "/>\n";
}

void Svg::text_el(std::string_view tag, const Attrs &a, std::string_view text) {
  out_ += fmt::format("<{}", tag);
  attrs(a);
  out_ += fmt::format(">{}</{}>\n", xml_escape(text), tag);
}

void Svg::rect(double x, double y, double w, double h, std::string_view fill, const Attrs &more) {
  Attrs a{
      {"x", px(x)}, {"y", px(y)}, {"width", px(w)}, {"height", px(h)}, {"fill", std::string(fill)}};
  a.insert(a.end(), more.begin(), more.end());
  leaf("rect", a);
}

void Svg::line(double x1, double y1, double x2, double y2, std::string_view stroke, double width,
               const Attrs &more) {
  Attrs a{{"x1", px(x1)},
          {"y1", px(y1)},
          {"x2", px(x2)},
          {"y2", px(y2)},
          {"stroke", std::string(stroke)},
          {"stroke-width", px(width)}};
  a.insert(a.end(), more.begin(), more.end());
  leaf("line", a);
}

void Svg::text(double x, double y, std::string_view s, const Attrs &more) {
  Attrs a{{"x", px(x)}, {"y", px(y)}};
  a.insert(a.end(), more.begin(), more.end());
  text_el("text", a, s);
}

std::string Svg::finish() {
  while (!open_.empty()) close();
  return std::move(out_);
}

}  // namespace schedlab::report
