package dev.steptrace.classify;

/**
 * What a kernel (or memcpy/memset) name is: its headline category, its subcategory and the id of
 * the rule that decided, so a user can always see why a name landed where it did.
 */
public record Classification(Category category, String subcategory, String ruleId) {
    /** The category's stable id ({@code allreduce}, {@code gemm}, ...). */
    public String categoryId() {
        return category.id();
    }

    @Override
    public String toString() {
        return category.id() + "/" + subcategory + " (" + ruleId + ")";
    }
}
