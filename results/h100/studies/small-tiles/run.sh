#!/bin/bash
# The tree before the small tiles (a16a060, its files unpacked in .deps/main-src) against the tree
# at 44a96e3, both on CCCL 3.5.0 (.deps/cccl-newest/include), twice each alternating; then variants
# of 44a96e3. Every sweep's files are packed into $OUT/ab.tgz as it ends.
export CMAKE_PREFIX_PATH=$PWD/.deps/nlohmann
C=$PWD/.deps/cccl-newest/include
A=$OUT/ab; mkdir -p $A; T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > $A/env.txt
build() {  # build SRC DIR REV
  local t0=$(date +%s)
  { cmake -S $1 -B $2 -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSC_CCCL=$C -DSC_GIT_REVISION=$3 &&
    cmake --build $2 --target cis565_stream_compaction -j 8; } > $A/build-$(basename $2).log 2>&1
  echo "build $2: exit $? in $(( $(date +%s) - t0 )) s" >> $A/summary.txt
}
sweep() {  # sweep DIR NAME FLAGS...
  local dir=$1 name=$2 t0=$(date +%s); shift 2
  timeout 100 ./$dir/cis565_stream_compaction "$@" --no-npot --max-time 0.1s --quiet --format markdown \
    --output $A/$name.md --output $A/$name.csv > $A/$name.log 2>&1
  echo "$name: exit $? in $(( $(date +%s) - t0 )) s (at $(( $(date +%s) - T0 )) s)" >> $A/summary.txt
  tar czf $OUT/ab.tgz -C $OUT ab
}
variant() {  # variant NAME FILE SED-EXPRESSION SWEEP-FLAGS...
  local name=$1 file=$2 expr=$3 t0=$(date +%s); shift 3
  cp $file /tmp/variant-orig
  sed -i "$expr" $file
  cmp -s $file /tmp/variant-orig && echo "$name: the sed changed nothing" >> $A/summary.txt
  cmake --build build-new --target cis565_stream_compaction > $A/build-$name.log 2>&1
  echo "build $name: exit $? in $(( $(date +%s) - t0 )) s" >> $A/summary.txt
  sweep build-new $name "$@"
  cp /tmp/variant-orig $file
}
rm -rf build-main build-new
build .deps/main-src build-main $MAIN_REV & build . build-new $NEW_REV & wait
ALL="--sizes 2^10:2^22:2 --backends decoupled,onesweep,cub --ops scan,compact,partition,sort,sort-pairs"
for r in 1 2; do sweep build-main main-$r $ALL; sweep build-new new-$r $ALL; done
DEC="--sizes 2^14:2^22:2 --backends decoupled,cub --ops scan,compact,partition"
variant dec-4k-to22 stream_compaction/decoupled.cu 's/constexpr long long kSmallTileLimit = 1 << 18;/constexpr long long kSmallTileLimit = 1 << 22;/; s/    using Hopper = TilePolicy<256, 2, 0>;/    using Hopper = TilePolicy<256, 4, 0>;/' $DEC
variant dec-limit20 stream_compaction/decoupled.cu 's/constexpr long long kSmallTileLimit = 1 << 18;/constexpr long long kSmallTileLimit = 1 << 20;/' $DEC
SPILL='/static_assert(sizeof(PassStorage<P>) <= 48/a\    asm volatile(".pragma \\"enable_smem_spilling\\";");'
variant os-smem-spill stream_compaction/onesweep.cu "$SPILL" --sizes 2^14:2^22:2 --backends onesweep,cub --ops sort,sort-pairs
variant os-ldcs stream_compaction/onesweep.cu 's/__ldg(warpKeys/__ldcs(warpKeys/g' --sizes 2^22:2^28:2 --backends onesweep,cub --ops sort,sort-pairs
cmake --build build-new --target cis565_stream_compaction > /dev/null 2>&1
sweep build-new os-base-large --sizes 2^22:2^28:2 --backends onesweep,cub --ops sort,sort-pairs
echo "total $(( $(date +%s) - T0 )) s" >> $A/summary.txt; tar czf $OUT/ab.tgz -C $OUT ab; cat $A/summary.txt
