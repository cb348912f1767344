// What the transpose scheduler decides for a segment and its inputs: the
// iteration dim the outputs run along (inner_dim, the threads' fast dim when
// computing), the dim the transposed inputs run along (tile_dim, the fast dim
// when they are read into shared memory), and which input accesses go through
// the tile.
#pragma once

#include <fusebox/scheduler.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kernelgen/access.h"
#include "pointwise/analysis.h"

namespace fusebox::transpose {

// A square tile of kTile x kTile elements per block, kTile x kRows threads
// (each thread handles kTile / kRows rows of it in each phase).
inline constexpr int kTile = 32;
inline constexpr int kRows = 8;

class TransposeParams final : public HeuristicParams {
 public:
  int reference_output = 0;
  std::vector<int64_t> iter_sizes;  // the reference output's logical sizes
  int inner_dim = 0;                // the outputs' stride-1 iteration dim
  int tile_dim = 0;                 // the transposed inputs' stride-1 iteration dim
  std::vector<int> staged_inputs;   // segment inputs read through the tile
  std::array<uint32_t, 3> grid{1, 1, 1};
  bool index32 = true;

  int64_t otherElements() const;  // product of the dims other than inner_dim and tile_dim
  uint64_t hash() const override;
  bool sameAs(const HeuristicParams& other) const override;
  std::string toString() const override;
};

// The params for `facts` and `accesses`, or why a tiled transpose does not
// apply (pointwise then takes the segment): no input is read across the
// outputs' inner dim, the outputs disagree on theirs, an inner extent is too
// small to fill a tile, or an access is not affine (a reshape that splits a
// dim, an indirect load, a pad or cat branch).
struct Layout {
  TransposeParams params;
  std::string problem;
};
Layout chooseLayout(const pointwise::SegmentFacts& facts,
                    const std::vector<kernelgen::Access>& accesses, const Fusion& segment);

}  // namespace fusebox::transpose
