package dev.steptrace.spark;

import java.io.Serializable;

/**
 * One trace file of the input, as the driver found it: the unit of one task.
 *
 * @param uri     the file, on any Hadoop file system
 * @param capture the capture's name: the name of the directory holding the file
 * @param bytes   the file's size as stored
 */
public record TraceRef(String uri, String capture, long bytes) implements Serializable {}
