package dev.vfskit.flink;

import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceEnumerator;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimitedSourceReader;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Flink's FLIP-27 NumberSequenceSource over 0..RECORDS-1 cut into SPLITS splits whatever the
 * parallelism (so each split's range is known to every run), read at PER_CHECKPOINT records per
 * checkpoint when paced. Its state is NumberSequenceSource's: the splits' serializer and the
 * enumerator's are Flink's own.
 */
final class SequenceSource extends NumberSequenceSource {
    /** The number of splits; readers take one at a time, the enumerator holds the rest. */
    static final int SPLITS = 4;

    private final boolean paced;

    SequenceSource(boolean paced) {
        super(0, ReferenceJob.RECORDS - 1);
        this.paced = paced;
    }

    @Override
    public SplitEnumerator<NumberSequenceSplit, Collection<NumberSequenceSplit>> createEnumerator(
            SplitEnumeratorContext<NumberSequenceSplit> ctx) {
        return new IteratorSourceEnumerator<>(ctx, splitNumberRange(getFrom(), getTo(), SPLITS));
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public SourceReader<Long, NumberSequenceSplit> createReader(SourceReaderContext ctx) {
        SourceReader<Long, NumberSequenceSplit> r = super.createReader(ctx);
        if (!paced) {
            return r;
        }
        RateLimiterStrategy s = RateLimiterStrategy.perCheckpoint(ReferenceJob.PER_CHECKPOINT);
        return new RateLimitedSourceReader(r, s.createRateLimiter(ctx.currentParallelism()));
    }

    /** Each split's id and range {from, to}, as the enumerator cuts them. */
    static List<Object[]> ranges() {
        List<Object[]> out = new ArrayList<>();
        for (NumberSequenceSplit s : new SequenceSource(false).splitNumberRange(0, ReferenceJob.RECORDS - 1, SPLITS)) {
            out.add(new Object[] {s.splitId(), s.from(), s.to()});
        }
        return out;
    }
}
