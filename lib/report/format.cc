#include "lib/report/format.h"

#include <cstdio>

namespace rp::report {

std::string Duration(int64_t ns) {
  char buf[32];
  const double v = static_cast<double>(ns);
  if (ns < 1000 && ns > -1000) std::snprintf(buf, sizeof buf, "%lld ns", static_cast<long long>(ns));
  else if (ns < 1000000 && ns > -1000000) std::snprintf(buf, sizeof buf, "%.3f us", v / 1e3);
  else if (ns < 1000000000 && ns > -1000000000) std::snprintf(buf, sizeof buf, "%.3f ms", v / 1e6);
  else std::snprintf(buf, sizeof buf, "%.3f s", v / 1e9);
  return buf;
}

std::string Percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%5.1f%%", 100 * share);
  return buf;
}

void TableText(const Table& rows, std::string* out, int width) {
  // Padded by hand: a cell longer than its column is kept whole.
  auto pad = [](const std::string& cell, size_t w, bool left) {
    const std::string fill(cell.size() < w ? w - cell.size() : 0, ' ');
    return left ? cell + fill : fill + cell;
  };
  for (const std::vector<std::string>& row : rows) {
    std::string s = pad(row[0], 20, true);
    for (size_t i = 1; i < row.size(); ++i) s += " " + pad(row[i], static_cast<size_t>(width), false);
    *out += s + "\n";
  }
}

void TableMarkdown(const Table& rows, std::string* out) {
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string s = "|";
    for (const std::string& cell : rows[r]) s += " " + cell + " |";
    *out += s + "\n";
    if (r == 0) {
      std::string rule = "|---|";
      for (size_t i = 1; i < rows[r].size(); ++i) rule += "---:|";
      *out += rule + "\n";
    }
  }
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b);
}

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

namespace {

// `name` without its bracketed parts (template arguments, parameter lists);
// "operator<", "operator()" and the like keep their own brackets.
std::string WithoutBrackets(std::string_view name) {
  std::string out;
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    // The keyword "operator" as a whole word: its symbol ("<<", "[]",
    // "()", " new") runs up to its parameters.
    const bool after_operator = depth == 0 && out.size() >= 8 && out.compare(out.size() - 8, 8, "operator") == 0 &&
                                (out.size() == 8 || out[out.size() - 9] == ':' || out[out.size() - 9] == ' ');
    if (after_operator) {
      size_t end = name.substr(i, 2) == "()" ? i + 2 : i;
      while (end < name.size() && name[end] != '(') ++end;
      if (end > i) {
        out.append(name.substr(i, end - i));
        i = end - 1;
        continue;
      }
    }
    if (c == '<' || c == '(') {
      // "(anonymous namespace)" is a name, not a parameter list.
      if (c == '(' && depth == 0 && name.substr(i, 21) == "(anonymous namespace)") {
        out += "(anonymous namespace)";
        i += 20;
        continue;
      }
      ++depth;
    } else if ((c == '>' || c == ')') && depth > 0) {
      --depth;
    } else if (depth == 0) {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string ShortFunction(std::string_view name) {
  std::string plain = WithoutBrackets(name);
  // "... const", "... volatile" after the parameters.
  for (std::string_view suffix : {" const", " volatile", " &", " &&"}) {
    if (plain.size() > suffix.size() && plain.compare(plain.size() - suffix.size(), suffix.size(), suffix) == 0) {
      plain.resize(plain.size() - suffix.size());
    }
  }
  // A return type before the name ("int foo<int>(int)" gives "int foo").
  const size_t space = plain.rfind(' ', plain.find("::") == std::string::npos ? std::string::npos : plain.find("::"));
  if (space != std::string::npos && plain.find("(anonymous namespace)") == std::string::npos &&
      plain.find("operator") == std::string::npos) {
    plain = plain.substr(space + 1);
  }
  // The last two components: Class::method.
  const size_t last = plain.rfind("::");
  if (last == std::string::npos || last == 0) return plain.empty() ? std::string(name) : plain;
  const size_t before = plain.rfind("::", last - 1);
  return before == std::string::npos ? plain : plain.substr(before + 2);
}

}  // namespace rp::report
