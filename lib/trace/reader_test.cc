#include "lib/trace/reader.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <string>

#include "lib/trace/input_set.h"
#include "lib/trace/testing.h"
#include "lib/trace/writer.h"

namespace rp::trace {
namespace {

const std::string kHeader = R"({"type":"header","schema":"rp-trace/1","producer":["test"]})";

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "/" + name; }

std::string WriteFile(const std::string& name, const std::string& bytes) {
  const std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string Zstd(const std::string& bytes, int level = 3) {
  std::string out(ZSTD_compressBound(bytes.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), level));
  return out;
}

std::string Site(int id) { return R"({"type":"site","id":)" + std::to_string(id) + "}"; }

// Reads the whole file; returns the raw lines or the error message.
struct ReadResult {
  std::vector<std::string> lines;
  std::vector<int64_t> line_numbers;
  std::string error;
  int64_t skipped = 0;
  std::string first_skip;
};

ReadResult ReadAll(const std::string& path, ReaderOptions options = {}) {
  ReadResult result;
  auto reader = Reader::Open(path, options);
  if (!reader.ok()) {
    result.error = reader.status().message();
    return result;
  }
  Record record;
  for (;;) {
    auto more = (*reader)->Next(&record);
    if (!more.ok()) {
      result.error = more.status().message();
      break;
    }
    if (!*more) break;
    result.lines.emplace_back(record.line);
    result.line_numbers.push_back((*reader)->line());
  }
  result.skipped = (*reader)->skipped();
  return result;
}

TEST(Reader, ReadsPlainAndNumbersLines) {
  const std::string path =
      WriteFile("plain.ndjson", kHeader + "\n\n" + Site(1) + "\r\n   \n" + Site(2));  // no final newline
  ReadResult r = ReadAll(path);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.lines.size(), 3u);
  EXPECT_EQ(r.lines[1], Site(1));
  EXPECT_EQ(r.lines[2], Site(2));
  EXPECT_EQ(r.line_numbers, (std::vector<int64_t>{1, 3, 5}));
}

TEST(Reader, ReadsMultiFrameZstdLikePlain) {
  std::string first = kHeader + "\n";
  std::string second;
  for (int i = 0; i < 50000; ++i) second += Site(i) + "\n";
  const std::string path = WriteFile("multi.zst", Zstd(first) + Zstd(second, 1));
  ReadResult r = ReadAll(path);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.lines.size(), 50001u);
  EXPECT_EQ(r.lines.back(), Site(49999));
}

TEST(Reader, LinesCrossingBufferBoundariesSurvive) {
  // Lines of varied length so that many straddle the reads and blocks.
  std::string text = kHeader + "\n";
  std::vector<std::string> expected = {kHeader};
  for (int i = 0; i < 40000; ++i) {
    std::string line = R"({"type":"site","id":)" + std::to_string(i) + R"(,"fn":")" +
                       std::string(i % 300, 'x') + "\"}";
    text += line + "\n";
    expected.push_back(line);
  }
  for (const std::string& path : {WriteFile("boundary.ndjson", text), WriteFile("boundary.zst", Zstd(text))}) {
    ReadResult r = ReadAll(path);
    ASSERT_EQ(r.error, "") << path;
    EXPECT_EQ(r.lines, expected) << path;
  }
}

// Whoever holds a record's block keeps its line where it was read: the
// reader goes on in other blocks, and reuses a block once no one holds it.
// Lines longer than a block (128 KiB) need bigger ones, held or not.
TEST(Reader, HeldBlocksKeepTheirLines) {
  std::string text = kHeader + "\n";
  std::vector<std::string> expected = {kHeader};
  for (int i = 0; i < 20000; ++i) {
    const size_t fill = i % 5000 == 17 ? 300000 + i : i % 400;
    std::string line = R"({"type":"site","id":)" + std::to_string(i) + R"(,"fn":")" + std::string(fill, 'a' + i % 26) +
                       "\"}";
    text += line + "\n";
    expected.push_back(line);
  }
  EXPECT_EQ(ReadAll(WriteFile("held-none.ndjson", text)).lines, expected);
  for (size_t keep : {size_t{1} << 30, size_t{1000}}) {  // every block, or the last thousand records'
    for (const std::string& path : {WriteFile("held.ndjson", text), WriteFile("held.zst", Zstd(text))}) {
      auto reader = Reader::Open(path);
      ASSERT_TRUE(reader.ok());
      Record record;
      std::vector<std::string_view> lines;
      std::vector<std::shared_ptr<const InputBlock>> held;
      while (*(*reader)->Next(&record)) {
        EXPECT_EQ((*reader)->block_address(), (*reader)->block().get());
        const char* bytes = (*reader)->block()->bytes.data();
        EXPECT_TRUE(record.line.data() >= bytes &&
                    record.line.data() + record.line.size() <= bytes + (*reader)->block()->bytes.size());
        lines.push_back(record.line);
        held.push_back((*reader)->block());
        if (held.size() > keep) held[held.size() - keep - 1].reset();
      }
      ASSERT_EQ(lines.size(), expected.size()) << path;
      for (size_t i = lines.size() - std::min(keep, lines.size()); i < lines.size(); ++i) {
        ASSERT_EQ(lines[i], expected[i]) << path << " line " << i + 1;
      }
    }
  }
}

std::string Mpi(int seq) {
  return R"({"type":"mpi","rank":1,"seq":)" + std::to_string(seq) + R"(,"fn":"MPI_Send","t0":10,"t1":20})";
}

// Canonical lines are decoded where they lie in the buffer (no pass to find
// their end): the same records, line numbers and errors as any other line.
TEST(Reader, CanonicalLinesReadLikeAnyOther) {
  const std::string reordered = R"({"type":"mpi","seq":3,"rank":1,"fn":"MPI_Send","t1":20,"t0":10})";
  const std::string text = kHeader + "\n" + Mpi(1) + "\n" + Mpi(2) + "\r\n\n" + reordered + "\n" + Mpi(4) +
                           "\n" + Mpi(5);  // no final newline
  ReadResult r = ReadAll(WriteFile("canonical.ndjson", text));
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.lines, (std::vector<std::string>{kHeader, Mpi(1), Mpi(2), reordered, Mpi(4), Mpi(5)}));
  EXPECT_EQ(r.line_numbers, (std::vector<int64_t>{1, 2, 3, 5, 6, 7}));
  auto reader = Reader::Open(TempPath("canonical.ndjson"));
  ASSERT_TRUE(reader.ok());
  Record record;
  for (int64_t seq = 0; seq <= 5; ++seq) {
    ASSERT_TRUE(*(*reader)->Next(&record));
    if (seq == 0) continue;
    EXPECT_EQ(record.type, RecordType::kMpi);
    EXPECT_EQ(record.type_name, "mpi");
    EXPECT_EQ(record.mpi.seq, seq);
    EXPECT_EQ(record.mpi.t1, 20);
    EXPECT_EQ(record.line, seq == 3 ? reordered : Mpi(seq));
  }
  // A canonical line longer than the limit is refused like any other.
  ReaderOptions small;
  small.max_line = Mpi(1).size() - 1;
  ReadResult limited = ReadAll(WriteFile("canonical-long.ndjson", kHeader + "\n" + Mpi(1) + "\n"), small);
  EXPECT_NE(limited.error.find("canonical-long.ndjson:2: line is " + std::to_string(Mpi(1).size()) + " bytes"),
            std::string::npos) << limited.error;
  // A later header of another schema is checked.
  const std::string later = kHeader + "\n" + Mpi(1) + "\n" +
                            R"({"type":"header","schema":"rp-trace/2","producer":["x"]})" "\n" + Mpi(2) + "\n";
  ReadResult two = ReadAll(WriteFile("canonical-header.ndjson", later));
  EXPECT_NE(two.error.find("canonical-header.ndjson:3: schema \"rp-trace/2\" is not supported"), std::string::npos)
      << two.error;
}

struct BadInput {
  std::string name;
  std::string bytes;
  std::string error;  // expected substring, with file:line
};

TEST(Reader, BadInputIsAClearErrorWithPosition) {
  std::string garbage(4096, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>((i * 7919) % 251);
  const std::string good = kHeader + "\n" + Site(1) + "\n";
  std::string zst = Zstd(good + Site(2) + "\n");
  const BadInput cases[] = {
      {"notjson", good + "hello\n", "notjson:3: not valid JSON"},
      {"empty", "", "empty: empty input"},
      {"blank", "\n\n", "blank: empty input"},
      {"noheader", Site(1) + "\n", "noheader:1: first record is \"site\", expected a header"},
      {"schema2", R"({"type":"header","schema":"rp-trace/2","producer":[]})" "\n",
       "schema2:1: schema \"rp-trace/2\" is not supported"},
      {"otherschema", R"({"type":"header","schema":"otf2","producer":[]})" "\n",
       "otherschema:1: schema \"otf2\" is not an rp-trace schema"},
      {"missing", good + R"({"type":"mpi","rank":2,"seq":9,"fn":"MPI_Send","t0":1})" "\n",
       "missing:3: field \"t1\" missing in mpi record (rank 2, seq 9)"},
      {"mistyped", good + R"({"type":"mpi","rank":2,"seq":9,"fn":"MPI_Send","t0":1,"t1":"2"})" "\n",
       "mistyped:3: field \"t1\" must be an integer, got \"2\""},
      {"longline", good + std::string(10 << 20, 'a') + "\n" + Site(3) + "\n",
       "longline:3: line is longer than the 1048576-byte limit"},
      {"garbage", garbage, "garbage:1: "},
      {"truncated.zst", zst.substr(0, zst.size() - 6), "truncated.zst: truncated zstd stream"},
      {"corrupt.zst", zst + std::string(40, 'Z'), "corrupt.zst: corrupt zstd data"},
      {"midrecord", good + R"({"type":"mpi","rank":2,"se)", "midrecord:3: not valid JSON"},
  };
  for (const BadInput& bad : cases) {
    ReadResult r = ReadAll(WriteFile(bad.name, bad.bytes));
    EXPECT_NE(r.error.find(bad.error), std::string::npos)
        << bad.name << ": got \"" << r.error << "\"";
  }
  ReadResult mid = ReadAll(TempPath("midrecord"));
  EXPECT_NE(mid.error.find("the stream ends mid-record"), std::string::npos) << mid.error;
}

TEST(Reader, MissingFileNamesIt) {
  ReadResult r = ReadAll(TempPath("does-not-exist.ndjson"));
  EXPECT_NE(r.error.find("does-not-exist.ndjson: cannot open: No such file"), std::string::npos) << r.error;
}

TEST(Reader, LenientSkipsAndCountsBadLines) {
  const std::string text = kHeader + "\n" + Site(1) + "\nbad\n" + std::string(2 << 20, 'a') + "\n" +
                           R"({"type":"site"})" "\n" + Site(2) + "\n";
  ReaderOptions options;
  options.lenient = true;
  ReadResult r = ReadAll(WriteFile("lenient", text), options);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.skipped, 3);
  EXPECT_EQ(r.lines, (std::vector<std::string>{kHeader, Site(1), Site(2)}));
  EXPECT_EQ(r.line_numbers.back(), 6);
}

TEST(Reader, LenientStillNeedsAHeader) {
  ReaderOptions options;
  options.lenient = true;
  ReadResult r = ReadAll(WriteFile("lenient-nohdr", "junk\n" + kHeader + "\n"), options);
  EXPECT_NE(r.error.find("lenient-nohdr:1: not valid JSON"), std::string::npos) << r.error;
}

TEST(WriterReader, WriteThenReadGivesIdenticalBytes) {
  for (bool zstd : {false, true}) {
    const std::string path = TempPath(zstd ? "rt.ndjson.zst" : "rt.ndjson");
    std::string expected;
    {
      OutputOptions options;
      options.zstd = zstd;
      auto writer = Writer::Open(path, options);
      ASSERT_TRUE(writer.ok());
      HeaderRecord header;
      header.set_schema("rp-trace/1");
      header.set_producer({"test"});
      ASSERT_TRUE((*writer)->Write(header).ok());
      Encode(header, &expected);
      MpiRecord m;
      for (int i = 0; i < 100000; ++i) {
        m.set_rank(i % 7);
        m.set_seq(i);
        m.set_fn(i % 2 ? "MPI_Isend" : "MPI_Waitall");
        m.set_t0(1'000'000'000 + 37 * i);
        m.set_t1(1'000'000'000 + 37 * i + i % 13);
        if (i % 2) m.set_peer(i % 5); else m.clear_peer();
        ASSERT_TRUE((*writer)->Write(m).ok());
        Encode(m, &expected);
        if (i % 25000 == 0) {
          // Lines longer than the writer's headroom past its flush mark,
          // encoded and raw; and a line spliced at its times.
          CommRecord c;
          c.set_id(i + 1);
          c.set_size(40000);
          c.set_ranks(std::vector<int64_t>(40000, 123456));
          ASSERT_TRUE((*writer)->Write(c).ok());
          std::string line;
          Encode(c, &line);
          expected += line;
          line.pop_back();
          ASSERT_TRUE((*writer)->WriteRaw(line).ok());
          expected += line + "\n";
          std::string encoded;
          Encode(m, &encoded);
          encoded.pop_back();
          const size_t t0 = encoded.find("\"t0\":") + 5;
          const SpanEdit edit[] = {{{static_cast<uint32_t>(t0), static_cast<uint32_t>(encoded.find(',', t0))}, 7}};
          ASSERT_TRUE((*writer)->WriteSpliced(encoded, edit).ok());
          m.set_t0(7);
          Encode(m, &expected);
        }
      }
      ASSERT_TRUE((*writer)->Close().ok());
    }
    std::string reread;
    auto reader = Reader::Open(path);
    ASSERT_TRUE(reader.ok());
    Record record;
    for (;;) {
      auto more = (*reader)->Next(&record);
      ASSERT_TRUE(more.ok()) << more.status().message();
      if (!*more) break;
      EncodeRecord(record, &reread);
    }
    EXPECT_EQ(reread, expected) << (zstd ? "zstd" : "plain");
    EXPECT_EQ((*reader)->compressed(), zstd);
  }
}

TEST(InputSet, ConcatenatesAndKeepsTheFirstHeader) {
  const std::string other = R"({"type":"header","schema":"rp-trace/1","producer":["test"],"app":"other"})";
  const std::string a = WriteFile("a.ndjson", kHeader + "\n" + Site(1) + "\n");
  const std::string b = WriteFile("b.zst", Zstd(other + "\n" + Site(2) + "\n"));
  InputSet inputs(std::vector<std::string>{a, b}, {});
  Record record;
  std::vector<std::string> lines;
  for (;;) {
    auto more = inputs.Next(&record);
    ASSERT_TRUE(more.ok()) << more.status().message();
    if (!*more) break;
    lines.emplace_back(record.line);
  }
  EXPECT_EQ(lines, (std::vector<std::string>{kHeader, Site(1), Site(2)}));
  EXPECT_EQ(inputs.differing_headers(), 1);
}

// Reads `path` through an InputSet: its lines, or the error.
ReadResult ReadSet(const std::string& path, const ReaderOptions& options = {}) {
  ReadResult result;
  InputSet inputs(std::vector<std::string>{path}, options);
  Record record;
  for (;;) {
    auto more = inputs.Next(&record);
    if (!more.ok()) {
      result.error = more.status().message();
      break;
    }
    if (!*more) break;
    result.lines.emplace_back(record.line);
  }
  result.skipped = inputs.skipped();
  result.first_skip = inputs.first_skip();
  return result;
}

std::string Event(int rank, int seq, int64_t t0) {
  return R"({"type":"mpi","rank":)" + std::to_string(rank) + R"(,"seq":)" + std::to_string(seq) +
         R"(,"fn":"MPI_Barrier","t0":)" + std::to_string(t0) + R"(,"t1":)" + std::to_string(t0 + 5) + "}";
}

// Four ranks in time order, with ties across parts (broken by rank), ties
// within a rank (file order), a sample, a line not in canonical form, and
// records that are no events between and after them.
const std::string kFourRanks =
    R"({"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":4,"run":"a1"})" "\n" +
    Site(1) + "\n" + Event(0, 0, 10) + "\n" + R"({"type":"sample","rank":1,"t":10,"stack":[1]})" "\n" +
    Event(2, 0, 10) + "\n" + Event(3, 0, 20) + "\n" + Event(3, 1, 20) + "\n" + Site(3) + "\n" +
    Event(2, 1, 24) + "\n" +
    R"({ "type": "mpi", "seq": 0, "rank": 1, "fn": "MPI_Barrier", "t1": 30, "t0": 25 })" "\n" +
    Event(0, 1, 30) + "\n" + Event(0, 2, 31) + "\n" + Site(2) + "\n";  // a record after the events

TEST(InputSet, ReadsASplitTraceAsTheTraceItWasSplitFrom) {
  for (const auto& groups : {std::vector<std::pair<int, int>>{{0, 1}, {2, 2}, {3, 3}},
                             std::vector<std::pair<int, int>>{{0, 3}},
                             std::vector<std::pair<int, int>>{{0, 0}, {1, 1}, {2, 2}, {3, 3}}}) {
    const ReadResult r = ReadSet(WriteSplit("four", kFourRanks, groups));
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.lines, Lines(kFourRanks)) << groups.size() << " parts";
  }
}

// rp-phases writes a window's phases in turn: rank 1's phase 0 ends after
// rank 0's phase 1 began, and still comes first.
TEST(InputSet, ReadsAPhasedSplitTraceInPhaseOrder) {
  auto tagged = [](int rank, int seq, int64_t t0, int phase) {
    std::string line = Event(rank, seq, t0);
    return line.insert(line.size() - 1, R"(,"phase":)" + std::to_string(phase));
  };
  const std::string phased =
      R"({"type":"header","schema":"rp-trace/1","producer":["test"],"ranks":2})" "\n" +
      std::string(R"({"type":"phase","id":0,"t0":0,"t1":60})") + "\n" + tagged(0, 0, 10, 0) + "\n" +
      tagged(1, 0, 20, 0) + "\n" + tagged(1, 1, 50, 0) + "\n" + R"({"type":"phase","id":1,"t0":60,"t1":90})" +
      "\n" + tagged(0, 1, 40, 1) + "\n" + tagged(1, 2, 60, 1) + "\n" +
      R"({ "type": "sample", "rank": 0, "t": 70, "stack": [1], "phase": 1 })" "\n" + tagged(0, 2, 80, 1) + "\n";
  const ReadResult r = ReadSet(WriteSplit("phased", phased, {{0, 0}, {1, 1}}));
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.lines, Lines(phased));
}

// --lenient: a malformed line of a part is skipped where it lies; the
// part's next record keeps its place, and the count still adds up.
TEST(InputSet, SkipsAMalformedLineOfAPartWhenLenient) {
  const std::string broken = R"({"type":"mpi","rank":2,"seq":9,"fn":"MPI_Barrier","t0":)";
  const std::string index = WriteSplit("lenient", kFourRanks, {{0, 1}, {2, 3}});
  // The part of ranks 2-3 gets a torn line after its fourth line, counted
  // in the index as the record it was.
  const std::string part = ::testing::TempDir() + "/lenient.part1.ndjson";
  std::ifstream part_in(part), index_in(index);
  std::string text((std::istreambuf_iterator<char>(part_in)), {});
  std::string index_text((std::istreambuf_iterator<char>(index_in)), {});
  const std::string before = Event(3, 1, 20) + "\n";
  text.insert(text.find(before) + before.size(), broken + "\n");
  std::ofstream(part, std::ios::binary) << text;
  const std::string count = R"("file":"lenient.part1.ndjson","first_rank":2,"last_rank":3,"records":5)";
  ASSERT_NE(index_text.find(count), std::string::npos) << index_text;
  index_text.replace(index_text.find(count), count.size(),
                     R"("file":"lenient.part1.ndjson","first_rank":2,"last_rank":3,"records":6)");
  std::ofstream(index, std::ios::binary) << index_text;
  ReaderOptions lenient;
  lenient.lenient = true;
  const ReadResult r = ReadSet(index, lenient);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.lines, Lines(kFourRanks));
  EXPECT_EQ(r.skipped, 1);
  EXPECT_NE(r.first_skip.find("lenient.part1.ndjson:5:"), std::string::npos) << r.first_skip;
}

TEST(InputSet, SaysWhatIsWrongWithASplitTrace) {
  const std::vector<std::pair<int, int>> groups{{0, 1}, {2, 3}};
  const std::string dir = ::testing::TempDir() + "/";
  auto read = [&](const std::function<void(std::string& index, std::string& part1)>& damage) {
    const std::string index_path = WriteSplit("bad", kFourRanks.substr(0, kFourRanks.find(R"({ "type")")), groups);
    std::ifstream in(index_path), part_in(dir + "bad.part1.ndjson");
    std::string index((std::istreambuf_iterator<char>(in)), {}), part1((std::istreambuf_iterator<char>(part_in)), {});
    damage(index, part1);
    std::ofstream(index_path, std::ios::binary) << index;
    if (part1.empty()) {
      std::remove((dir + "bad.part1.ndjson").c_str());
    } else {
      std::ofstream(dir + "bad.part1.ndjson", std::ios::binary) << part1;
    }
    return ReadSet(index_path).error;
  };
  auto replace = [](std::string& text, const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
  };
  EXPECT_EQ(read([](std::string&, std::string&) {}), "");
  EXPECT_NE(read([](std::string&, std::string& part) { part.clear(); })
                .find("bad.ndjson names a part that cannot be read: " + dir + "bad.part1.ndjson: cannot open"),
            std::string::npos);
  EXPECT_NE(read([&](std::string&, std::string& part) { replace(part, R"("run":"a1")", R"("run":"b2")"); })
                .find("bad.part1.ndjson: its header differs from its index's"),
            std::string::npos);
  EXPECT_NE(read([&](std::string&, std::string& part) { part.resize(part.rfind(Event(3, 1, 20))); })
                .find("bad.part1.ndjson: 2 records, its index says 5 (a truncated or replaced part?)"),
            std::string::npos);
  EXPECT_NE(read([&](std::string& index, std::string&) { replace(index, R"("first_rank":2)", R"("first_rank":3)"); })
                .find("bad.ndjson: ranks 2..2 are in no part"),
            std::string::npos);
  EXPECT_NE(read([&](std::string& index, std::string&) { replace(index, R"("first_rank":2)", R"("first_rank":1)"); })
                .find("bad.ndjson: rank 1 is in two parts"),
            std::string::npos);
  EXPECT_NE(read([&](std::string& index, std::string&) { replace(index, R"("last_rank":3)", R"("last_rank":4)"); })
                .find("bad.ndjson: its parts hold ranks 0..4, its header says 4 ranks"),
            std::string::npos);
  EXPECT_NE(read([&](std::string&, std::string& part) { replace(part, Event(3, 0, 20), Event(1, 0, 20)); })
                .find("bad.part1.ndjson:3: rank 1 is not one of the part's ranks 2..3"),
            std::string::npos);
  EXPECT_NE(read([&](std::string&, std::string& part) { replace(part, Event(3, 1, 20), Event(3, 1, 99)); })
                .find("bad.part1.ndjson:4: time 99 lies outside the part's 10..24"),
            std::string::npos);
  EXPECT_NE(read([&](std::string&, std::string& part) { replace(part, Event(3, 1, 20), part.substr(0, part.find('\n'))); })
                .find(R"(bad.part1.ndjson:4: a "header" record where the part has a record)"),
            std::string::npos);
  EXPECT_NE(read([&](std::string& index, std::string&) {
              const std::string part0 = index.substr(index.find(R"({"type":"part")"));
              index += Site(9) + "\n" + part0.substr(0, part0.find('\n') + 1);
            }).find(R"(bad.ndjson:5: a "site" record after the part records)"),
            std::string::npos);
}

}  // namespace
}  // namespace rp::trace
