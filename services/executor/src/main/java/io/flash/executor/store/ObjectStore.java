package io.flash.executor.store;

import io.flash.common.store.ObjectLocation;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.*;

import java.net.URI;
import java.nio.file.Files;
import java.io.InputStream;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

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

    /** The object's entity tag (changes when the object does). */
    public String etag(ObjectLocation at) throws NotFound {
        try {
            return client.headObject(HeadObjectRequest.builder().bucket(at.bucket()).key(at.key()).build()).eTag();
        } catch (NoSuchKeyException | NoSuchBucketException e) {
            throw new NotFound(at + " does not exist");
        } catch (S3Exception e) {
            if (e.statusCode() == 404) throw new NotFound(at + " does not exist");
            throw e;
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
    public java.util.List<Listed> list(ObjectLocation prefix) throws NotFound {
        java.util.List<Listed> found = new java.util.ArrayList<>();
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
