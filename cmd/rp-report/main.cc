// rp-report: a saved analysis as a report for people.
#include "lib/cli/tool.h"
#include "lib/report/report.h"

int main(int argc, char** argv) {
  using rp::report::Format;
  rp::cli::Tool tool("rp-report", "Render the analysis records of a saved stream as a report for people.");
  rp::cli::IoOptions io;
  tool.AddInputs(&io);
  tool.AddOutput(&io);
  Format format = Format::kText;
  tool.AddChoice<Format>("--format", &format, {{"text", Format::kText}, {"markdown", Format::kMarkdown}, {"html", Format::kHtml}},
                         "text for a terminal, markdown for a wiki, an issue or a pull request, html for a "
                         "browser (one self-contained page with pictures)");
  tool.SetFooter(
      "Reads: rp-trace/1 with analysis records: rp-cpath's cp_summary, cp_profile, cp_zeroing\n"
      "and cp_imbalance (the whole run's). Other records are passed over.\n"
      "Writes: the report; the same as the stage's own --format text or markdown would have\n"
      "shown when it ran, without running it again.\n"
      "\n"
      "Examples:\n"
      "  rp-cpath -o cpath.ndjson.zst phased.ndjson.zst && rp-report cpath.ndjson.zst\n"
      "  rp-report --format markdown cpath.ndjson.zst > critical-path.md\n"
      "  diff <(rp-report before.ndjson.zst) <(rp-report after.ndjson.zst)");
  return tool.Main(argc, argv, [&]() -> rp::Status {
    RP_ASSIGN_OR_RETURN(rp::cli::Streams streams, tool.OpenStreams());
    return rp::report::RenderStream(*streams.input, format, *streams.output);
  });
}
