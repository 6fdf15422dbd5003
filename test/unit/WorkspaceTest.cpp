//===- WorkspaceTest.cpp - Offsets of buffers in the workspace ------------===//
#include "txc/Pipeline/Workspace.h"

#include <gtest/gtest.h>

using namespace txc;

namespace {

TEST(WorkspaceTest, NoBuffersNeedNoWorkspace) {
  WorkspacePlan plan = planWorkspace({});
  EXPECT_EQ(plan.totalBytes, 0u);
  EXPECT_TRUE(plan.offsets.empty());
}

TEST(WorkspaceTest, OverlappingLifetimesGetDisjointAlignedBytes) {
  // Sizes that are not multiples of the alignment: each next buffer starts
  // at the next multiple of 64.
  WorkspacePlan plan = planWorkspace({{100, 0, 5}, {1000, 1, 6}, {10, 2, 3}});
  ASSERT_EQ(plan.offsets.size(), 3u);
  EXPECT_EQ(plan.offsets[1], 0u);    // largest first
  EXPECT_EQ(plan.offsets[0], 1024u); // after 1000 bytes, rounded up
  EXPECT_EQ(plan.offsets[2], 1152u); // after 1024 + 100, rounded up
  EXPECT_EQ(plan.totalBytes, 1216u); // 1162, rounded up to 64
}

TEST(WorkspaceTest, DisjointLifetimesShareBytes) {
  // A chain of temporaries: each dies before the one after next is born.
  WorkspacePlan plan =
      planWorkspace({{4096, 0, 2}, {4096, 1, 4}, {4096, 3, 6}, {4096, 5, 8}});
  EXPECT_EQ(plan.offsets[0], 0u);
  EXPECT_EQ(plan.offsets[1], 4096u);
  EXPECT_EQ(plan.offsets[2], 0u);
  EXPECT_EQ(plan.offsets[3], 4096u);
  EXPECT_EQ(plan.totalBytes, 8192u);
}

TEST(WorkspaceTest, LifetimesTouchingAtOneOpOverlap) {
  // The first buffer's last use is the op that allocates the second.
  WorkspacePlan plan = planWorkspace({{64, 0, 3}, {64, 3, 4}});
  EXPECT_NE(plan.offsets[0], plan.offsets[1]);
  EXPECT_EQ(plan.totalBytes, 128u);
}

TEST(WorkspaceTest, SmallBufferFillsAGap) {
  // 0 and 2 are live together with 1 (between them in the workspace); 3
  // lives only with 1 and fits where 0 was.
  WorkspacePlan plan = planWorkspace(
      {{1024, 0, 10}, {2048, 0, 20}, {512, 5, 10}, {256, 15, 20}});
  EXPECT_EQ(plan.offsets[1], 0u);
  EXPECT_EQ(plan.offsets[0], 2048u);
  EXPECT_EQ(plan.offsets[2], 3072u);
  EXPECT_EQ(plan.offsets[3], 2048u);
  EXPECT_EQ(plan.totalBytes, 3584u);
}

TEST(WorkspaceTest, EmptyBuffersTakeNoSpace) {
  WorkspacePlan plan = planWorkspace({{0, 0, 9}, {128, 1, 2}});
  EXPECT_EQ(plan.offsets[0], 0u);
  EXPECT_EQ(plan.offsets[1], 0u);
  EXPECT_EQ(plan.totalBytes, 128u);
}

TEST(WorkspaceTest, EveryOffsetIsAligned) {
  std::vector<WorkspaceBuffer> buffers;
  for (unsigned i = 0; i < 20; ++i)
    buffers.push_back({uint64_t(1 + 37 * i), i, i + 3});
  WorkspacePlan plan = planWorkspace(buffers);
  for (size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_EQ(plan.offsets[i] % kWorkspaceAlignment, 0u);
    EXPECT_LE(plan.offsets[i] + buffers[i].bytes, plan.totalBytes);
    for (size_t j = 0; j < i; ++j) {
      bool live = buffers[i].begin <= buffers[j].end &&
                  buffers[j].begin <= buffers[i].end;
      bool shared = plan.offsets[i] < plan.offsets[j] + buffers[j].bytes &&
                    plan.offsets[j] < plan.offsets[i] + buffers[i].bytes;
      EXPECT_FALSE(live && shared) << i << " and " << j;
    }
  }
}

} // namespace
