#include "lib/trace/validator.h"

#include <gtest/gtest.h>

#include "lib/trace/codec.h"

namespace rp::trace {
namespace {

// Validates hand-written lines; returns the problems found.
std::vector<std::string> Validate(const std::vector<std::string>& lines) {
  LineDecoder decoder;
  Validator validator;
  Record record;
  int line_no = 0;
  for (const std::string& line : lines) {
    std::string padded = line + std::string(kDecodePadding, ' ');
    Status status = decoder.Decode(std::string_view(padded.data(), line.size()), &record);
    EXPECT_TRUE(status.ok()) << line << ": " << status.message();
    validator.Check(record, "t:" + std::to_string(++line_no));
  }
  validator.Finish();
  EXPECT_EQ(validator.problem_count(), static_cast<int64_t>(validator.problems().size()));
  return validator.problems();
}

const std::string kHeader = R"({"type":"header","schema":"rp-trace/1","producer":["t"],"ranks":2})";
const std::string kWorld = R"({"type":"comm","id":0,"size":2,"ranks":[0,1]})";
const std::string kSite = R"({"type":"site","id":1})";

TEST(Validator, ConsistentStreamHasNoProblems) {
  EXPECT_EQ(Validate({kHeader, R"({"type":"rank","rank":0})", R"({"type":"rank","rank":1})", kWorld,
                      kSite,
                      R"({"type":"mpi","rank":0,"seq":0,"fn":"MPI_Send","t0":1,"t1":2,"site":1,"comm":0,"peer":1})",
                      R"({"type":"mpi","rank":1,"seq":0,"fn":"MPI_Recv","t0":0,"t1":3,"comm":0,"peer":-1})",
                      R"({"type":"mpi","rank":0,"seq":1,"fn":"MPI_Barrier","t0":2,"t1":4,"comm":0})",
                      R"({"type":"sample","rank":1,"t":5,"stack":[1]})",
                      R"({"type":"phase","id":0,"t0":0,"t1":4})",
                      R"({"type":"cp_segment","rank":0,"t0":2,"t1":4,"kind":"mpi","length":2,"site":1})"}),
            std::vector<std::string>{});
}

TEST(Validator, FindsEachKindOfInconsistency) {
  EXPECT_EQ(
      Validate({kHeader, kWorld, kSite,
                R"({"type":"mpi","rank":2,"seq":0,"fn":"MPI_Send","t0":1,"t1":2})",
                R"({"type":"mpi","rank":0,"seq":5,"fn":"MPI_Send","t0":10,"t1":9})",
                R"({"type":"mpi","rank":0,"seq":5,"fn":"MPI_Send","t0":8,"t1":9,"site":2,"comm":3,"peer":7})",
                R"({"type":"comm","id":0,"size":3,"ranks":[0,1]})",
                R"({"type":"sample","rank":0,"t":5,"stack":[1,9]})",
                R"({"type":"phase","id":0,"t0":5,"t1":4})",
                R"({"type":"cp_segment","rank":3,"t0":1,"t1":2,"kind":"mpi","length":1})",
                R"({"type":"cp_segment","rank":1,"t0":5,"t1":4,"kind":"compute","length":-1,"site":8})"}),
      (std::vector<std::string>{
          "t:4: mpi record has rank 2, outside 0..1 (header.ranks = 2)",
          "t:5: t1 < t0 (rank 0, seq 5)",
          "t:6: seq does not increase (rank 0, seq 5): previous was 5",
          "t:6: local time goes backwards (rank 0, seq 5): t0 8 < previous t0 10",
          "t:6: site 2 is used before its site record",
          "t:6: comm 3 is used before its comm record (rank 0, seq 5)",
          "t:6: peer 7 is not a rank (rank 0, seq 5)",
          "t:7: communicator id 0 defined twice",
          "t:7: comm 0 has size 3 but lists 2 ranks",
          "t:8: site 9 is used before its site record",
          "t:9: phase 0 has t1 < t0",
          "t:10: cp_segment record has rank 3, outside 0..1 (header.ranks = 2)",
          "t:11: cp_segment has t1 < t0 (rank 1)",
          "t:11: cp_segment has a negative length (rank 1)",
          "t:11: site 8 is used before its site record",
      }));
}

TEST(Validator, ReportsRanksWithoutRankRecords) {
  EXPECT_EQ(Validate({kHeader, R"({"type":"rank","rank":0})", R"({"type":"rank","rank":0})"}),
            (std::vector<std::string>{"t:3: second rank record for rank 0",
                                      "<end>: 1 of 2 ranks have no rank record (first: rank 1)"}));
}

}  // namespace
}  // namespace rp::trace
