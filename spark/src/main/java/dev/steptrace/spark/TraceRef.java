package dev.steptrace.spark;

import java.io.Serializable;

/**
 * One trace file of the input, as the driver found it: the unit of one task.
 *
 * @param uri     the file, on any Hadoop file system
 * @param capture the capture's name: the name of the directory holding the file
 * @param key     a name for the task's output files, the same on every run over this file, so that a
 *                retried task replaces what a failed attempt wrote
 */
public record TraceRef(String uri, String capture, String key) implements Serializable {}
