#include "lib/trace/edit.h"

#include <gtest/gtest.h>

#include <string>

#include "lib/trace/codec.h"

namespace rp::trace {
namespace {

std::string Edit(RecordType type, std::string_view line, std::initializer_list<IntEdit> edits) {
  std::string out;
  EditInts(type, line, std::span<const IntEdit>(edits.begin(), edits.size()), &out);
  return out;
}

// What decoding, setting and re-encoding gives: the splice must match it on
// lines this library wrote.
std::string Reencoded(std::string_view line, std::initializer_list<IntEdit> edits) {
  LineDecoder decoder;
  Record record;
  EXPECT_TRUE(decoder.DecodeCopy(line, &record).ok()) << line;
  for (const IntEdit& e : edits) {
    if (record.type == RecordType::kMpi) {
      if (e.name == "t0") record.mpi.set_t0(e.value);
      if (e.name == "t1") record.mpi.set_t1(e.value);
      if (e.name == "phase") record.mpi.set_phase(e.value);
      if (e.name == "seq") record.mpi.set_seq(e.value);
    } else if (record.type == RecordType::kSample) {
      if (e.name == "t") record.sample.set_t(e.value);
      if (e.name == "phase") record.sample.set_phase(e.value);
    }
  }
  std::string out;
  EncodeRecord(record, &out);
  return out;
}

constexpr std::string_view kSend =
    R"({"type":"mpi","rank":2,"seq":7,"fn":"MPI_Send","t0":100,"t1":250,"site":3,"comm":0,"peer":1,"tag":5,"bytes":64})";
constexpr std::string_view kWaitall =
    R"({"type":"mpi","rank":0,"seq":9,"fn":"MPI_Waitall","t0":5,"t1":9,"completed":[1,2],"resolved":[{"req":1,"peer":3,"tag":-1,"bytes":8}],"phase":4,"future":{"a":"}\"x","b":[1,{"c":2}]}})";

TEST(EditInts, ReplacesTimesInPlace) {
  const auto out = Edit(RecordType::kMpi, kSend, {{"t0", 1000000000123}, {"t1", -5}});
  EXPECT_EQ(out,
            R"({"type":"mpi","rank":2,"seq":7,"fn":"MPI_Send","t0":1000000000123,"t1":-5,"site":3,"comm":0,"peer":1,"tag":5,"bytes":64})"
            "\n");
  EXPECT_EQ(out, Reencoded(kSend, {{"t0", 1000000000123}, {"t1", -5}}));
}

TEST(EditInts, InsertsAMissingFieldInSchemaOrder) {
  const auto out = Edit(RecordType::kMpi, kSend, {{"phase", 12}});
  EXPECT_EQ(out, std::string(kSend.substr(0, kSend.size() - 1)) + ",\"phase\":12}\n");
  EXPECT_EQ(out, Reencoded(kSend, {{"phase", 12}}));
}

TEST(EditInts, KeepsUnknownKeysAfterSchemaFields) {
  // "phase" is replaced, "future" (with a brace and a quote in a string) kept.
  EXPECT_EQ(Edit(RecordType::kMpi, kWaitall, {{"phase", 5}, {"t1", 10}}),
            Reencoded(kWaitall, {{"phase", 5}, {"t1", 10}}));
  // A missing field goes before the unknown key, as Encode puts extras last.
  const std::string line = R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Barrier","t0":1,"t1":2,"zz":[3]})";
  EXPECT_EQ(Edit(RecordType::kMpi, line, {{"phase", 0}}),
            R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Barrier","t0":1,"t1":2,"phase":0,"zz":[3]})"
            "\n");
  EXPECT_EQ(Edit(RecordType::kMpi, line, {{"phase", 0}}), Reencoded(line, {{"phase", 0}}));
}

TEST(EditInts, SamplesAndSeveralInsertions) {
  const std::string sample = R"({"type":"sample","rank":1,"t":55,"stack":[4,2]})";
  EXPECT_EQ(Edit(RecordType::kSample, sample, {{"phase", 3}, {"t", 60}}), Reencoded(sample, {{"phase", 3}, {"t", 60}}));
  const std::string bare = R"({"type":"mpi","rank":0,"fn":"MPI_Barrier","t0":1,"t1":2})";
  EXPECT_EQ(Edit(RecordType::kMpi, bare, {{"phase", 1}, {"seq", 4}}),
            R"({"type":"mpi","rank":0,"seq":4,"fn":"MPI_Barrier","t0":1,"t1":2,"phase":1})"
            "\n");
}

TEST(EditInts, ToleratesOtherLayouts) {
  // Keys out of order and spaces: a present field is replaced where it is
  // (no duplicate), a missing one lands after the last earlier field.
  const std::string line = R"( { "t1" : 2 , "type":"mpi", "phase": null, "rank":0,"fn":"MPI_Barrier","t0":1 } )";
  EXPECT_EQ(Edit(RecordType::kMpi, line, {{"t1", 7}, {"phase", 2}}),
            R"( { "t1" : 7 , "type":"mpi", "phase": 2, "rank":0,"fn":"MPI_Barrier","t0":1 } )"
            "\n");
  const std::string shuffled = R"({"t0":1,"type":"mpi","rank":0,"fn":"MPI_Barrier","t1":2})";
  EXPECT_EQ(Edit(RecordType::kMpi, shuffled, {{"seq", 4}}),
            R"({"t0":1,"type":"mpi","rank":0,"seq":4,"fn":"MPI_Barrier","t1":2})"
            "\n");
  const std::string empty_object = R"({ })";
  EXPECT_EQ(Edit(RecordType::kMpi, empty_object, {{"t0", 1}, {"t1", 2}}), R"({ "t0":1,"t1":2})" "\n");
  // Keys spelled with escapes are the keys they mean: replaced, not added.
  const std::string escaped = R"({"type":"mpi","rank":0,"t\u0030":1,"t\u0031":2,"ph\u0061se":3})";
  EXPECT_EQ(Edit(RecordType::kMpi, escaped, {{"t0", 5}, {"t1", 6}, {"phase", 7}}),
            R"({"type":"mpi","rank":0,"t\u0030":5,"t\u0031":6,"ph\u0061se":7})" "\n");
}

// A field the caller marks absent is appended after the last member, found
// from the end of the line when the last value is plain; every other ending,
// and an edit not so marked, takes the forward scan. All must give what
// re-encoding gives.
TEST(EditInts, AppendsAfterAnyLastValue) {
  const std::string lines[] = {
      R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Isend","t0":1,"t1":2,"peer":3,"tag":-1,"bytes":8,"req":3})",
      R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Isend","t0":1,"t1":2,"peer":3,"tag":-1})",
      R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Waitall","t0":1,"t1":2,"completed":[0,1,2,3]})",
      R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Waitall","t0":1,"t1":2,"completed":[]})",
      R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Allreduce","t0":1,"t1":2,"op":"MPI_SUM"})",
      R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Allreduce","t0":1,"t1":2,"op":"a\"b,\"phase\":1"})",
      R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Wait","t0":1,"t1":2,"resolved":[{"req":1,"peer":3,"tag":-1,"bytes":8}]})",
      R"({"type":"mpi"})",
      R"({"type":"sample","rank":1,"t":55,"stack":[4,2],"weight":-7})",
  };
  for (const std::string& line : lines) {
    const RecordType type = line.find("sample") != std::string::npos ? RecordType::kSample : RecordType::kMpi;
    if (line == R"({"type":"mpi"})") {
      EXPECT_EQ(Edit(type, line, {{"phase", 4}}), R"({"type":"mpi","phase":4})" "\n");
      EXPECT_EQ(Edit(type, line, {{"phase", 4, true}}), R"({"type":"mpi","phase":4})" "\n");
      continue;
    }
    EXPECT_EQ(Edit(type, line, {{"phase", 4}}), Reencoded(line, {{"phase", 4}})) << line;
    EXPECT_EQ(Edit(type, line, {{"phase", 4, true}}), Reencoded(line, {{"phase", 4}})) << line;
    const std::string_view time = type == RecordType::kSample ? "t" : "t0";
    EXPECT_EQ(Edit(type, line, {{"phase", 4, true}, {time, 9}}), Reencoded(line, {{"phase", 4}, {time, 9}})) << line;
    EXPECT_EQ(Edit(type, line, {{"phase", 4}, {time, 9}}), Reencoded(line, {{"phase", 4}, {time, 9}})) << line;
  }
  // Present out of schema order, or last after an unknown key: never a second copy.
  EXPECT_EQ(Edit(RecordType::kMpi, R"({"type":"mpi","phase":1,"rank":0,"req":3})", {{"phase", 4}}),
            R"({"type":"mpi","phase":4,"rank":0,"req":3})" "\n");
  EXPECT_EQ(Edit(RecordType::kMpi, R"({"type":"mpi","rank":0,"zz":3})", {{"phase", 4}}),
            R"({"type":"mpi","rank":0,"phase":4,"zz":3})" "\n");
  EXPECT_EQ(Edit(RecordType::kMpi, R"({"type":"mpi","rank":0,"req":3} )", {{"phase", 4}}),
            R"({"type":"mpi","rank":0,"req":3,"phase":4} )" "\n");
}


// The decoder's spans of a canonical line: each int field replaced there,
// and a field appended at the brace after the last member, give what
// EditInts gives (checked against re-encoding above); every span holds
// exactly the value's text.
TEST(EditSpans, AtTheDecodersSpansEqualsEditInts) {
  const std::string lines[] = {
      std::string(kSend),
      R"({"type":"mpi","rank":3,"seq":12,"fn":"MPI_Isend","t0":1000000050543,"t1":1000000050975,"site":2,"comm":0,"peer":48,"tag":-101,"bytes":8192,"req":0})",
      R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Waitall","t0":1,"t1":2,"completed":[0,1,2,3],"resolved":[{"req":1,"peer":3,"tag":-1,"bytes":8}]})",
      R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Allreduce","t0":-1,"t1":0,"comm":4,"bytes":8,"op":"MPI_SUM","phase":2})",
      R"({"type":"sample","rank":1,"t":55,"stack":[4,2]})",
      R"({"type":"clock","rank":5,"method":"pingpong","offset":-12,"rtt":40})",
  };
  LineDecoder decoder;
  Record record;
  for (const std::string& line : lines) {
    ASSERT_TRUE(decoder.Decode(line, &record).ok()) << line;
    ASSERT_TRUE(record.canonical) << line;
    const RecordSpec& spec = SpecOf(record.type);
    uint64_t present = 0;
    switch (record.type) {
#define RP_PRESENT(Camel, lower, doc) \
  case RecordType::k##Camel:          \
    present = record.lower.present;   \
    break;
      RP_RECORD_TYPES(RP_PRESENT)
#undef RP_PRESENT
      case RecordType::kUnknown:
        break;
    }
    int last = -1;
    for (size_t k = 0; k < spec.fields.size(); ++k) {
      if (((present >> k) & 1) == 0) continue;
      last = static_cast<int>(k);
      const FieldSpec& field = spec.fields[k];
      const ValueSpan at = record.spans[k];
      const std::string key = "\"" + std::string(field.name) + "\":";
      ASSERT_GE(at.begin, key.size()) << line << " " << field.name;
      EXPECT_EQ(line.substr(at.begin - key.size(), key.size()), key) << line;
      EXPECT_TRUE(line[at.end] == ',' || (line[at.end] == '}' && at.end + 1 == line.size())) << line << " " << field.name;
      if (field.kind != FieldKind::kInt) continue;
      const SpanEdit edit[] = {{at, -1234567890123}};
      std::string spliced;
      EditSpans(line, edit, &spliced);
      EXPECT_EQ(spliced, Edit(record.type, line, {{field.name, -1234567890123}})) << line << " " << field.name;
    }
    EXPECT_EQ(record.last_field, last) << line;
    if (record.type == RecordType::kMpi && record.last_field < MpiRecord::k_phase) {
      const uint32_t brace = static_cast<uint32_t>(line.size() - 1);
      const SpanEdit append[] = {{{brace, brace}, 77, "phase"}};
      std::string spliced;
      EditSpans(line, append, &spliced);
      EXPECT_EQ(spliced, Reencoded(line, {{"phase", 77}})) << line;
    }
    if (record.type == RecordType::kMpi) {  // both times at once, as rp-clocksync does
      const SpanEdit times[] = {{record.spans[MpiRecord::k_t0], 5}, {record.spans[MpiRecord::k_t1], 1000000000000000}};
      std::string spliced;
      EditSpans(line, times, &spliced);
      EXPECT_EQ(spliced, Reencoded(line, {{"t0", 5}, {"t1", 1000000000000000}})) << line;
    }
  }
}

}  // namespace
}  // namespace rp::trace
