package io.flash.executor.store;

import io.flash.common.store.ObjectLocation;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.*;

/**
 * The S3-compatible object store, through the AWS SDK for Java v2 (any S3 API: AWS, MinIO, Ceph,
 * s3proxy). Checksums only where the API requires them, since many S3-compatible servers reject
 * the SDK's newer default trailing checksums.
 */
public final class ObjectStore implements AutoCloseable {

    /** How to reach the store. Empty endpoint: AWS itself; empty keys: the SDK's default credential chain. */
    public record Settings(String endpoint, String region, String accessKey, String secretKey, boolean pathStyle) {
        @Override
        public String toString() { // never the secret
            return "ObjectStore.Settings[endpoint=" + endpoint + ", region=" + region + ", pathStyle=" + pathStyle + "]";
        }
    }

    /** The object (or its bucket) does not exist: the user named something that is not there. */
    public static final class NotFound extends Exception {
        NotFound(String message) {
            super(message);
        }
    }

    /** What the operator sets for s3:// to work (bin/flash up starts a store on one machine and sets them). */
    static final String SETTINGS_HINT = "the node's object store is set by FLASH_S3_ENDPOINT, FLASH_S3_ACCESS_KEY and "
            + "FLASH_S3_SECRET_KEY (bin/flash up starts one on this machine; docs/operations.md)";

    /**
     * Why the node's store settings cannot work, when {@code e} says so: no credentials found, or a key
     * or signature the store does not know. Null for any other failure (a store that is down, a slow
     * network), which a retry may mend.
     */
    public static String misconfiguration(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof S3Exception s3 && s3.awsErrorDetails() != null && s3.awsErrorDetails().errorCode() != null
                    && MISCONFIGURED_CODES.contains(s3.awsErrorDetails().errorCode())) {
                return "the object store refused this node's key (" + s3.awsErrorDetails().errorCode() + "); " + SETTINGS_HINT;
            }
            if (t instanceof SdkClientException && t.getMessage() != null && t.getMessage().contains("Unable to load credentials")) {
                return "this node has no credentials for the object store; " + SETTINGS_HINT;
            }
        }
        return null;
    }

    private static final Set<String> MISCONFIGURED_CODES = Set.of("InvalidAccessKeyId", "SignatureDoesNotMatch",
            "InvalidSecurity", "InvalidToken", "ExpiredToken");

    private final S3Client client;

    public ObjectStore(Settings settings) {
        AwsCredentialsProvider credentials = settings.accessKey() == null || settings.accessKey().isBlank()
                ? DefaultCredentialsProvider.builder().build()
                : StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKey(), settings.secretKey()));
        S3ClientBuilder builder = S3Client.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .region(Region.of(settings.region()))
                .credentialsProvider(credentials)
                .forcePathStyle(settings.pathStyle())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        if (settings.endpoint() != null && !settings.endpoint().isBlank()) {
            builder.endpointOverride(URI.create(settings.endpoint()));
        }
        this.client = builder.build();
    }

    /**
     * Asks the store for its buckets, as a node does once at start: null when it answers, else what
     * is wrong in words (the settings, or a store that does not answer).
     */
    public String problem() {
        try {
            client.listBuckets();
            return null;
        } catch (RuntimeException e) {
            String misconfigured = misconfiguration(e);
            return misconfigured != null ? misconfigured : "the object store does not answer (" + e.getMessage() + ")";
        }
    }

    /** The object's entity tag (changes when the object does). */
    public String etag(ObjectLocation at) throws NotFound {
        try {
            return client.headObject(HeadObjectRequest.builder().bucket(at.bucket()).key(at.key()).build()).eTag();
        } catch (NoSuchKeyException | NoSuchBucketException e) {
            throw new NotFound(at + " does not exist");
        } catch (S3Exception e) {
            if (e.statusCode() == 404) throw new NotFound(at + " does not exist");
            if (e.statusCode() == 403) throw withItsReason(at);
            throw e;
        }
    }

    /** A HEAD answer has no body, so a 403 does not say why: the first byte is asked for, whose refusal says. */
    private RuntimeException withItsReason(ObjectLocation at) throws NotFound {
        try {
            client.getObject(GetObjectRequest.builder().bucket(at.bucket()).key(at.key()).range("bytes=0-0").build(),
                    ResponseTransformer.toBytes());
            return new IllegalStateException("the store refused to describe " + at + " but gave its first byte");
        } catch (NoSuchKeyException | NoSuchBucketException e) {
            throw new NotFound(at + " does not exist");
        } catch (S3Exception e) {
            return e;
        }
    }

    /** Downloads to a temporary file next to {@code target}, then moves it in place. */
    public void download(ObjectLocation from, Path target) throws Exception {
        Files.createDirectories(target.toAbsolutePath().getParent());
        Path partial = target.resolveSibling(target.getFileName() + ".part");
        Files.deleteIfExists(partial);
        try {
            client.getObject(GetObjectRequest.builder().bucket(from.bucket()).key(from.key()).build(), ResponseTransformer.toFile(partial));
        } catch (NoSuchKeyException | NoSuchBucketException e) {
            throw new NotFound(from + " does not exist");
        }
        Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** An object under a prefix, with its size. */
    public record Listed(ObjectLocation location, long size) {
    }

    /** Every object under the prefix, in key order (the store's listing order). */
    public List<Listed> list(ObjectLocation prefix) throws NotFound {
        List<Listed> found = new ArrayList<>();
        try {
            for (S3Object o : client.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(prefix.bucket()).prefix(prefix.key()).build())
                    .contents()) {
                if (!o.key().endsWith("/")) found.add(new Listed(new ObjectLocation(prefix.bucket(), o.key()), o.size()));
            }
        } catch (NoSuchBucketException e) {
            throw new NotFound(prefix + ": no such bucket");
        }
        return found;
    }

    /** @throws NotFound when the bucket does not exist: the task's mistake, not the store's failure */
    public void upload(Path file, ObjectLocation to) throws NotFound {
        try {
            client.putObject(PutObjectRequest.builder().bucket(to.bucket()).key(to.key()).build(), RequestBody.fromFile(file));
        } catch (NoSuchBucketException e) {
            throw new NotFound("bucket " + to.bucket() + " does not exist");
        }
    }

    /** The same from an open stream of {@code length} bytes (a file the executor opened without following links). */
    public void upload(InputStream content, long length, ObjectLocation to) throws NotFound {
        try {
            client.putObject(PutObjectRequest.builder().bucket(to.bucket()).key(to.key()).build(),
                    RequestBody.fromInputStream(content, length));
        } catch (NoSuchBucketException e) {
            throw new NotFound("bucket " + to.bucket() + " does not exist");
        }
    }

    @Override
    public void close() {
        client.close();
    }
}
