package io.flash.common.store;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code s3://bucket/key}: where an object lives in the S3-compatible store. */
public record ObjectLocation(String bucket, String key) {

    private static final Pattern URI = Pattern.compile("s3://([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])/(.+)");
    private static final Pattern PREFIX = Pattern.compile("s3://([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:/(.*))?");

    public static boolean isObjectUri(String text) {
        return text != null && text.startsWith("s3://");
    }

    /** @throws IllegalArgumentException naming what is wrong */
    public static ObjectLocation parse(String uri) {
        Matcher m = URI.matcher(uri);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + uri + "' is not s3://bucket/key (bucket: 3-63 lowercase letters, digits, '.', '-')");
        }
        return new ObjectLocation(m.group(1), m.group(2));
    }

    /** {@code s3://bucket} or {@code s3://bucket/prefix}: a place to put objects under. */
    public static ObjectLocation parsePrefix(String uri) {
        Matcher m = PREFIX.matcher(uri);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + uri + "' is not s3://bucket or s3://bucket/prefix (bucket: 3-63 lowercase letters, digits, '.', '-')");
        }
        return new ObjectLocation(m.group(1), m.group(2) == null ? "" : m.group(2));
    }

    /** The location of {@code path} under this location taken as a prefix. */
    public ObjectLocation child(String path) {
        String prefix = key.isEmpty() || key.endsWith("/") ? key : key + "/";
        return new ObjectLocation(bucket, prefix + path);
    }

    @Override
    public String toString() {
        return "s3://" + bucket + "/" + key;
    }
}
