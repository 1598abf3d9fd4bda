/**
 * Compaction policies as pure functions of a partition's numbers (REMIX §4.2; Autumn's Garnering
 * and RangeReduce to come), and a simulator that replays a load through a policy. JDK only.
 */
module dev.remixdb.compaction {
    exports dev.remixdb.compaction;
}
