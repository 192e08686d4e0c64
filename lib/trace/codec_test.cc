#include "lib/trace/codec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rp::trace {
namespace {

// Decodes a line the way the reader does (with simdjson's padding).
Status DecodeLine(LineDecoder& decoder, const std::string& line, Record* record) {
  std::string padded = line + std::string(kDecodePadding, ' ');
  Status status = decoder.Decode(std::string_view(padded.data(), line.size()), record);
  record->line = {};
  return status;
}

// Every record type and every field kind, in canonical (schema) order.
const std::vector<std::string> kCanonicalLines = {
    R"({"type":"header","schema":"rp-trace/1","producer":["rp-record 0.1.0","rp-clocksync 0.1.0"],"app":"/bin/app","argv":["./app","-n","3"],"ranks":4,"clock":"local","order":"time"})",
    R"({"type":"rank","rank":3,"host":"node-07","pid":4242,"events":10,"samples":0,"complete":false})",
    R"({"type":"comm","id":5,"size":2,"ranks":[1,3],"remote":[0,2],"kind":"split","parent":0})",
    R"({"type":"site","id":7,"fn":"exchange_halo","file":"src/halo.c","line":120,"module":"/bin/app","addr":"0x4011a3"})",
    R"({"type":"mpi","rank":1,"seq":17,"fn":"MPI_Waitall","t0":1000,"t1":2500,"site":7,"comm":0,"completed":[0,1],"resolved":[{"req":0,"peer":2,"tag":5,"bytes":800},{"req":1,"peer":0,"tag":-1,"bytes":0}]})",
    R"({"type":"mpi","rank":0,"seq":0,"fn":"MPI_Sendrecv","t0":-5,"t1":9223372036854775807,"peer":1,"tag":3,"bytes":8,"rpeer":-2,"rtag":4,"rbytes":16,"root":0,"op":"MPI_SUM","req":9,"reqs":[4,5],"msg":2,"newcomm":3,"win":1,"fh":2,"offset":4096,"phase":12})",
    R"({"type":"sample","rank":2,"t":123456789,"stack":[7,3,1],"weight":5000000,"phase":0})",
    R"({"type":"clock","rank":1,"method":"linear","when":"init","t":55,"offset":-1234567,"rtt":800,"drift":-12.5,"moved":3,"max_shift":150})",
    R"({"type":"phase","id":3,"t0":100,"t1":900,"kind":"iteration","signature":"9f3a","cluster":1,"iteration":2,"events":64})",
    R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Send","t0":1,"t1":2,"future_field":{"nested":[1,2,{"x":null}]},"other":"text"})",
    R"({"type":"future_kind","id":1,"hops":[1,2,3]})",
};

TEST(Codec, CanonicalLinesRoundTripByteForByte) {
  LineDecoder decoder;
  Record record;
  for (const std::string& line : kCanonicalLines) {
    ASSERT_TRUE(DecodeLine(decoder, line, &record).ok()) << line;
    std::string padded = line + std::string(kDecodePadding, ' ');
    ASSERT_TRUE(decoder.Decode(std::string_view(padded.data(), line.size()), &record).ok());
    std::string encoded;
    EncodeRecord(record, &encoded);
    EXPECT_EQ(encoded, line + "\n");
  }
}

TEST(Codec, DecodesTypedValues) {
  LineDecoder decoder;
  Record record;
  ASSERT_TRUE(DecodeLine(decoder, kCanonicalLines[4], &record).ok());
  ASSERT_EQ(record.type, RecordType::kMpi);
  const MpiRecord& m = record.mpi;
  EXPECT_EQ(m.rank, 1);
  EXPECT_EQ(m.seq, 17);
  EXPECT_EQ(m.fn, "MPI_Waitall");
  EXPECT_EQ(m.t1 - m.t0, 1500);
  EXPECT_FALSE(m.has_peer());
  EXPECT_FALSE(m.has_reqs());
  EXPECT_EQ(m.completed, (std::vector<int64_t>{0, 1}));
  ASSERT_EQ(m.resolved.size(), 2u);
  EXPECT_EQ(m.resolved[0], (Completion{0, 2, 5, 800}));
  EXPECT_EQ(m.resolved[1].tag, -1);

  ASSERT_TRUE(DecodeLine(decoder, kCanonicalLines[7], &record).ok());
  EXPECT_DOUBLE_EQ(record.clock.drift, -12.5);
  ASSERT_TRUE(DecodeLine(decoder, kCanonicalLines[10], &record).ok());
  EXPECT_EQ(record.type, RecordType::kUnknown);
  EXPECT_EQ(record.type_name, "future_kind");
}

TEST(Codec, AcceptsKeysInAnyOrderAndWritesSchemaOrder) {
  LineDecoder decoder;
  Record record;
  ASSERT_TRUE(DecodeLine(decoder,
                         R"({"t1":20,"fn":"MPI_Barrier","rank":2,"type":"mpi","t0":10,"seq":4})",
                         &record).ok());
  std::string out;
  EncodeRecord(record, &out);
  EXPECT_EQ(out, R"({"type":"mpi","rank":2,"seq":4,"fn":"MPI_Barrier","t0":10,"t1":20})" "\n");
}

TEST(Codec, EscapedKeysNameTheirFields) {
  LineDecoder decoder;
  Record record;
  ASSERT_TRUE(DecodeLine(decoder, R"({"type":"mpi","rank":3,"seq":1,"fn":"MPI_Send","t\u0030":7,"t1":9})", &record).ok());
  EXPECT_EQ(record.mpi.t0, 7);
  EXPECT_TRUE(record.mpi.extra.empty());
}

TEST(Codec, NullMeansAbsent) {
  LineDecoder decoder;
  Record record;
  ASSERT_TRUE(DecodeLine(decoder, R"({"type":"site","id":1,"fn":null})", &record).ok());
  EXPECT_FALSE(record.site.has_fn());
}

TEST(Codec, ReusedRecordForgetsPreviousFields) {
  LineDecoder decoder;
  Record record;
  ASSERT_TRUE(DecodeLine(decoder, kCanonicalLines[5], &record).ok());
  ASSERT_TRUE(DecodeLine(decoder, R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Send","t0":1,"t1":2})", &record).ok());
  std::string out;
  EncodeRecord(record, &out);
  EXPECT_EQ(out, R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Send","t0":1,"t1":2})" "\n");
}

TEST(Codec, EscapesStrings) {
  SiteRecord site;
  site.set_id(1);
  site.set_fn(std::string("a\"b\\c\n\t\x01 \xC3\xA9 \xFF end"));
  std::string out;
  Encode(site, &out);
  EXPECT_EQ(out, "{\"type\":\"site\",\"id\":1,\"fn\":\"a\\\"b\\\\c\\n\\t\\u0001 \xC3\xA9 \xEF\xBF\xBD end\"}\n");
  // And it reads back as what was meant (invalid byte replaced).
  LineDecoder decoder;
  Record record;
  out.pop_back();
  ASSERT_TRUE(DecodeLine(decoder, out, &record).ok());
  EXPECT_EQ(record.site.fn, "a\"b\\c\n\t\x01 \xC3\xA9 \xEF\xBF\xBD end");
}

TEST(Codec, RealsAreShortestAndExact) {
  ClockRecord c;
  c.set_rank(0);
  c.set_method("linear");
  for (double v : {0.1, -12.5, 1e-7, 123456.789, 0.0}) {
    c.set_drift(v);
    std::string out;
    Encode(c, &out);
    LineDecoder decoder;
    Record record;
    out.pop_back();
    ASSERT_TRUE(DecodeLine(decoder, out, &record).ok()) << out;
    EXPECT_EQ(record.clock.drift, v) << out;
  }
  c.set_drift(0.1);
  std::string out;
  Encode(c, &out);
  EXPECT_NE(out.find("\"drift\":0.1}"), std::string::npos) << out;
}

struct BadLine {
  std::string line;
  std::string message;
};

TEST(Codec, RejectsBadLinesWithFieldAndRecord) {
  const BadLine cases[] = {
      {"not json", "not valid JSON"},
      {"[1,2]", "not a JSON object"},
      {R"({"rank":1})", "field \"type\" missing"},
      {R"({"type":7})", "field \"type\" must be a string, got 7"},
      {R"({"type":"mpi","rank":3,"seq":17,"fn":"MPI_Send","t0":1})",
       "field \"t1\" missing in mpi record (rank 3, seq 17)"},
      {R"({"type":"mpi","rank":3,"seq":1,"fn":"MPI_Send","t0":1.5,"t1":2})",
       "field \"t0\" must be an integer, got 1.5 in mpi record (rank 3, seq 1)"},
      {R"({"type":"mpi","rank":0,"seq":1,"fn":7,"t0":1,"t1":2})", "field \"fn\" must be a string"},
      {R"({"type":"comm","id":1,"size":1,"ranks":"0"})", "field \"ranks\" must be an array"},
      {R"({"type":"comm","id":1,"size":1,"ranks":[0,"x"]})", "field \"ranks\" must be an array of integers in comm record (id 1)"},
      {R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Wait","t0":1,"t1":2,"resolved":[{"peer":1}]})",
       "field \"resolved\" must be an array of {\"req\", \"peer\", \"tag\", \"bytes\"} objects with integer values and \"req\" present"},
      {R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Wait","t0":1,"t1":2,"resolved":[{"req":1,"peer":"x"}]})",
       "field \"resolved\" must be an array of {\"req\""},
      {R"({"type":"site","id":99999999999999999999})", "field \"id\" must be an integer"},
      {R"({"type":"site","id":1,"x":[1,2})", "not valid JSON"},
      {R"({"type":"site","id":1} trailing)", "not valid JSON"},
      {R"({"type":"site","id":1)", "not valid JSON"},
      {R"({"type":"rank","rank":1,"complete":"yes"})", "field \"complete\" must be true or false"},
      {R"({"type":"mpi","rank":3,"seq":1,"fn":"MPI_Send","t0":1,"t1":2,"t1":3})",
       "field \"t1\" given twice in mpi record (rank 3, seq 1)"},
      {R"({"type":"mpi","rank":3,"type":"sample","seq":1,"fn":"MPI_Send","t0":1,"t1":2})",
       "field \"type\" given twice in mpi record"},
      {R"({"rank":3,"type":"mpi","seq":1,"type":"mpi","fn":"MPI_Send","t0":1,"t1":2})",
       "field \"type\" given twice in mpi record"},
      {R"({"type":"mpi","rank":3,"seq":1,"fn":"MPI_Send","t0":null,"t0":5,"t1":9})",
       "field \"t0\" given twice in mpi record (rank 3, seq 1)"},
      {R"({"type":"mpi","rank":3,"seq":1,"fn":"MPI_Send","t0":1,"t1":9,"t\u0030":2})",
       "field \"t0\" given twice in mpi record (rank 3, seq 1)"},
      {R"({"type":"mpi","typ\u0065":"mpi","rank":3,"seq":1,"fn":"MPI_Send","t0":1,"t1":9})",
       "field \"type\" given twice in mpi record"},
      {R"({"type":"mpi","rank":3,"seq":1,"fn":"MPI_Send","t0":1,"t1":9,"x":1,"x":[2]})",
       "field \"x\" given twice in mpi record (rank 3, seq 1)"},
  };
  LineDecoder decoder;
  Record record;
  for (const BadLine& bad : cases) {
    Status status = DecodeLine(decoder, bad.line, &record);
    ASSERT_FALSE(status.ok()) << bad.line;
    EXPECT_EQ(status.code(), StatusCode::kInput);
    EXPECT_NE(status.message().find(bad.message), std::string::npos)
        << bad.line << "\n  got: " << status.message();
  }
}

// DecodeLineAt on `text` followed by the zero bytes a reader keeps there,
// in *padded (which record->line points into).
size_t DecodeLineAt(LineDecoder& decoder, const std::string& text, Record* record, std::string* padded) {
  *padded = text + std::string(kDecodePadding, '\0');
  return decoder.DecodeLineAt(std::string_view(padded->data(), text.size()), record);
}

// Both decoding paths on one line: the same verdict, message and record.
void ExpectSameDecoding(LineDecoder& fast, LineDecoder& validating, const std::string& line) {
  Record a, b;
  const int64_t scanned = fast.scanned();
  const Status sa = DecodeLine(fast, line, &a);
  const Status sb = DecodeLine(validating, line, &b);
  // Decoded where it lies, before the next line: the same lines are taken,
  // with the same result; no others.
  const bool took = fast.scanned() > scanned;
  if (line.find('\n') == std::string::npos) {
    Record at;
    const std::string rest = line + "\n" + kCanonicalLines[4];
    std::string padded;
    const size_t length = DecodeLineAt(fast, rest, &at, &padded);
    EXPECT_EQ(length, took ? line.size() : 0) << line;
    if (length != 0) {
      EXPECT_EQ(at.line, line);
      std::string ea, eb;
      at.line = a.line = line;
      EncodeRecord(at, &ea);
      EncodeRecord(a, &eb);
      EXPECT_EQ(ea, eb) << line;
      EXPECT_EQ(DecodeLineAt(fast, line + "\r\n", &at, &padded), 0u) << line;
      EXPECT_EQ(DecodeLineAt(fast, line, &at, &padded), 0u) << line;  // its end not in sight
    }
  }
  ASSERT_EQ(sa.ok(), sb.ok()) << line << "\n  direct scan: " << sa.message()
                              << "\n  simdjson: " << sb.message();
  EXPECT_EQ(sa.message(), sb.message()) << line;
  if (!sa.ok()) return;
  EXPECT_EQ(a.type, b.type) << line;
  EXPECT_EQ(a.type_name, b.type_name) << line;
  std::string ea, eb;
  a.line = b.line = line;  // unknown types re-encode as their line
  EncodeRecord(a, &ea);
  EncodeRecord(b, &eb);
  EXPECT_EQ(ea, eb) << line;
}

TEST(Codec, DirectScanTakesCanonicalLinesWithoutRealsOrExtras) {
  LineDecoder decoder;
  Record record;
  int64_t expected = 0;
  for (size_t i = 0; i < kCanonicalLines.size(); ++i) {
    const std::string& line = kCanonicalLines[i];
    ASSERT_TRUE(DecodeLine(decoder, line, &record).ok()) << line;
    // clock (a real), an mpi record with unknown fields and an unknown type
    // take the simdjson path.
    const bool simdjson = i == 7 || i == 9 || i == 10;
    expected += simdjson ? 0 : 1;
    EXPECT_EQ(decoder.scanned(), expected) << line;
  }
  const std::string extremes =
      R"({"type":"mpi","rank":0,"seq":0,"fn":"MPI_Send","t0":-9223372036854775808,"t1":9223372036854775807})";
  ASSERT_TRUE(DecodeLine(decoder, extremes, &record).ok());
  EXPECT_EQ(decoder.scanned(), expected + 1);
  EXPECT_EQ(record.mpi.t0, INT64_MIN);
  EXPECT_EQ(record.mpi.t1, INT64_MAX);
  // Keys out of schema order leave the in-order scan for the key-by-key
  // one: still scanned, with the same fields and value spans.
  const std::string in_order = R"({"type":"mpi","rank":3,"seq":1,"fn":"MPI_Send","t0":10,"t1":20,"peer":1,"tag":7})";
  const std::string shuffled = R"({"type":"mpi","seq":1,"rank":3,"fn":"MPI_Send","t0":10,"t1":20,"tag":7,"peer":1})";
  Record a, b;
  ASSERT_TRUE(DecodeLine(decoder, in_order, &a).ok());
  ASSERT_TRUE(DecodeLine(decoder, shuffled, &b).ok());
  EXPECT_EQ(decoder.scanned(), expected + 3);
  std::string encoded_a, encoded_b;
  Encode(a.mpi, &encoded_a);
  Encode(b.mpi, &encoded_b);
  EXPECT_EQ(encoded_a, in_order + "\n");
  EXPECT_EQ(encoded_b, encoded_a);
  EXPECT_EQ(a.last_field, MpiRecord::k_tag);
  EXPECT_EQ(b.last_field, MpiRecord::k_peer);
  EXPECT_EQ(shuffled.substr(b.spans[MpiRecord::k_tag].begin, 1), "7");
  EXPECT_EQ(shuffled.substr(b.spans[MpiRecord::k_peer].begin, 1), "1");
}

// The direct scan must accept only what simdjson accepts, with the same
// result: every canonical and bad line above, and each of them with one
// character replaced, deleted or inserted at every position.
TEST(Codec, DirectScanAndSimdjsonAgreeOnMutatedLines) {
  LineDecoder fast(LineDecoder::Path::kCanonicalFirst);
  LineDecoder validating(LineDecoder::Path::kValidating);
  std::vector<std::string> lines = kCanonicalLines;
  lines.push_back(R"({"type":"mpi","rank":0,"seq":0,"fn":"MPI_Send","t0":-9223372036854775808,"t1":1})");
  lines.push_back(R"({"type":"mpi","rank":0,"seq":0,"fn":"MPI_Send","t0":00,"t1":-0})");
  lines.push_back(R"({"type":"mpi","rank":0,"seq":0,"fn":"MPI_Send","t0":1,"t1":2,"t1":3,"fn":"x"})");
  lines.push_back(R"({"type":"mpi","rank":0,"seq":0,"fn":"MPI_Send","t0":1,"t1":2,"peer":null})");
  lines.push_back(R"({"type":"mpi","type":"mpi","rank":0,"seq":0,"fn":"\u00e9","t0":1,"t1":2})");
  // Keys of 7, 8 and 9 bytes (compared past the first word), keys in the
  // last 8 bytes of a line (compared byte by byte) and out of order.
  lines.push_back(R"({"type":"mpi","rank":0,"seq":0,"fn":"MPI_Comm_split","t0":1,"t1":2,"newcomm":5})");
  lines.push_back(R"({"type":"mpi","rank":0,"seq":0,"fn":"MPI_Waitall","t0":1,"t1":2,"completed":[1,2]})");
  lines.push_back(R"({"type":"mpi","t1":2,"rank":0,"seq":0,"fn":"f","t0":1,"t":3})");
  // Numbers of 1 to 20 digits, read eight digits a word, in the middle of
  // a line and at its end.
  lines.push_back(
      R"({"type":"mpi","rank":1234567,"seq":12345678,"fn":"f","t0":123456789,"t1":1234567890123456,)"
      R"("site":12345678901234567,"comm":-99999999,"peer":-123456780,"tag":0,"bytes":9223372036854775807,"req":12345678})");
  lines.push_back(R"({"type":"mpi","rank":0,"seq":0,"fn":"f","t0":1,"t1":-9223372036854775808,"req":1234567890123456})");
  lines.push_back(R"({"type":"mpi","rank":0,"seq":0,"fn":"f","t0":18446744073709551616,"t1":2,"req":123456789})");
  const std::string replacements = std::string("\"\\ .e-0189,:}]{[x\t\x80", 20) + std::string(1, '\0');
  int64_t compared = 0;
  for (const std::string& line : lines) {
    ExpectSameDecoding(fast, validating, line);
    for (size_t i = 0; i <= line.size(); ++i) {
      for (char c : replacements) {
        std::string inserted = line;
        inserted.insert(inserted.begin() + i, c);
        ExpectSameDecoding(fast, validating, inserted);
        if (i == line.size()) continue;
        std::string replaced = line;
        replaced[i] = c;
        ExpectSameDecoding(fast, validating, replaced);
        compared += 2;
      }
      if (i < line.size()) ExpectSameDecoding(fast, validating, line.substr(0, i) + line.substr(i + 1));
      if (testing::Test::HasFailure()) return;  // one mismatch says enough
    }
  }
  EXPECT_GT(fast.scanned(), 1000);
  EXPECT_GT(compared, 50000);
}

}  // namespace
}  // namespace rp::trace
