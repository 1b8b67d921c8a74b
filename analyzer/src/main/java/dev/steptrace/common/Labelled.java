package dev.steptrace.common;

/**
 * An enum of the shared vocabulary with an id ({@link Identified}) and a label, what reports, diffs and
 * memos print: {@link Phase}, {@link StepSource}, the diff's and the memo's verdicts.
 */
public interface Labelled extends Identified {
    /** What reports print. */
    String label();

    /** The label of an id of {@code type}; an id it does not have prints as it is, a missing one as {@code n/a}. */
    static <E extends Enum<E> & Labelled> String labelOf(Class<E> type, String id) {
        return id == null ? "n/a" : Identified.byId(type, id).map(Labelled::label).orElse(id);
    }
}
