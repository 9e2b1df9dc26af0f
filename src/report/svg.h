// SPDX-License-Identifier: GPL-2.0-only
#pragma once
// A tiny SVG writer: elements with escaped attributes and text, numbers at fixed precision so
// the same picture is the same bytes. Shared by the timeline and the report's charts.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedlab::report {

// &, <, >, " and ' as entities; other bytes unchanged (UTF-8 passes through).
std::string xml_escape(std::string_view s);
// Fixed two decimals ("12.50"); enough for pixels, and never locale- or platform-dependent.
std::string px(double v);

using Attrs = std::vector<std::pair<std::string, std::string>>;

class Svg {
 public:
  // A standalone SVG (with the xmlns) of the given size in pixels.
  Svg(double width, double height);
  void open(std::string_view tag, const Attrs &attrs = {});
  void close();                                         // the innermost open element
  void leaf(std::string_view tag, const Attrs &attrs);  // <tag .../>
  void text_el(std::string_view tag, const Attrs &attrs, std::string_view text);
  void raw(std::string_view s) { out_ += s; }

  void rect(double x, double y, double w, double h, std::string_view fill, const Attrs &more = {});
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1,
            const Attrs &more = {});
  void text(double x, double y, std::string_view s, const Attrs &more = {});
  void title(std::string_view s) { text_el("title", {}, s); }
  // Closes every open element and returns the document.
  std::string finish();

 private:
  void attrs(const Attrs &a);
  std::string out_;
  std::vector<std::string> open_;
};

}  // namespace schedlab::report
