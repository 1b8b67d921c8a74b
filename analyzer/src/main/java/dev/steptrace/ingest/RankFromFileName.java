package dev.steptrace.ingest;

import java.util.List;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rank a trace file's name states: vLLM's {@code dp0_pp0_tp3_dcp0_ep0_rank3.<ns>.pt.trace.json.gz}
 * and {@code <id>-rank-3}, torch's {@code rank3.<ns>...} worker names, SGLang's {@code -TP-3-}.
 * torch's default {@code host_pid.<ns>.pt.trace.json.gz} states none.
 */
public final class RankFromFileName {
    private static final List<Pattern> PATTERNS = List.of(
            Pattern.compile("rank[-_]?(\\d+)", Pattern.CASE_INSENSITIVE),
            Pattern.compile("-TP-(\\d+)"),
            Pattern.compile("(?<![a-z])tp(\\d+)", Pattern.CASE_INSENSITIVE));

    private RankFromFileName() {}

    public static OptionalInt of(String fileName) {
        for (Pattern p : PATTERNS) {
            Matcher m = p.matcher(fileName);
            if (m.find()) {
                try {
                    return OptionalInt.of(Integer.parseInt(m.group(1)));
                } catch (NumberFormatException e) {
                    return OptionalInt.empty();
                }
            }
        }
        return OptionalInt.empty();
    }
}
