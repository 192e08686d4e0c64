#include "lib/diagnose/diagnose.h"

#include <memory>
#include <string>
#include <vector>

#include "lib/base/version.h"
#include "lib/diagnose/diagnosis.h"
#include "lib/diagnose/figures.h"
#include "lib/diagnose/path_records.h"
#include "lib/graph/window_graphs.h"

namespace rp::diagnose {

Status Run(const Config& config, trace::InputSet& input, trace::Writer& out) {
  window::WindowReader windows(input, window::Boundaries::kClean, config.read);
  RP_RETURN_IF_ERROR(windows.Start());
  const window::Dictionary& dict = windows.dictionary();
  RP_RETURN_IF_ERROR(window::WritePrelude(dict, std::string("rp-diagnose ") + kVersion, &out, nullptr,
                                          !config.passthrough));
  Figures figures(dict, config.cause_share);
  RP_RETURN_IF_ERROR(figures.NoteRecords(dict));
  Diagnosis diagnosis(config, dict);
  PathSource path(dict, [&figures](const trace::CpSegmentRecord& s, const StreamPlace& place) {
    figures.PathStep(s, place);
  });
  std::vector<PhaseFigures> ended;
  int64_t backward = 0;
  {
    graph::WindowGraphs source(windows, 1);
    for (;;) {
      RP_ASSIGN_OR_RETURN(std::unique_ptr<graph::WindowGraph> w, source.Next());
      if (!w) break;
      backward += w->graph.problems().backward_edges;
      if (config.passthrough) {
        for (const window::Line& r : w->window.lines) RP_RETURN_IF_ERROR(out.WriteRaw(w->window.text(r)));
      }
      RP_RETURN_IF_ERROR(figures.AddWindow(*w, &ended));
      for (const PhaseFigures& f : ended) diagnosis.Add(f);
      ended.clear();
      RP_RETURN_IF_ERROR(path.AddWindow(&w));
      source.Recycle(std::move(w));
    }
  }
  window::WarnAboutInput(windows);
  if (!figures.started()) return NothingError("the trace has no mpi records: nothing to diagnose");
  figures.Finish(&ended);
  for (const PhaseFigures& f : ended) diagnosis.Add(f);
  WarnAboutRun(figures.phased(), figures.attribution().any_samples(), backward);
  RP_RETURN_IF_ERROR(path.Finish());
  RP_RETURN_IF_ERROR(diagnosis.Write(figures, path.records(), out));
  return out.Close();
}

}  // namespace rp::diagnose
