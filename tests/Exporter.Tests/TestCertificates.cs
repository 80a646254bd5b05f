using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace ScalableMetrics.Exporter.Tests;

/// <summary>
/// A certificate authority made at test time (<see cref="CertificateRequest"/>, ECDSA P-256, valid
/// for a day), with a server certificate for <c>127.0.0.1</c> and <c>localhost</c> and a client
/// certificate signed by it, written as PEM files to a folder of their own that is deleted on
/// dispose. Nothing is checked in.
/// </summary>
internal sealed class TestCertificates : IDisposable
{
    private const string ServerAuthentication = "1.3.6.1.5.5.7.3.1";
    private const string ClientAuthentication = "1.3.6.1.5.5.7.3.2";

    private readonly DateTimeOffset _notBefore;
    private readonly DateTimeOffset _notAfter;

    private TestCertificates(string directory, string name)
    {
        Directory = directory;
        using ECDsa caKey = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var caRequest = new CertificateRequest($"CN={name} test CA", caKey, HashAlgorithmName.SHA256);
        caRequest.CertificateExtensions.Add(new X509BasicConstraintsExtension(true, false, 0, true));
        caRequest.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.KeyCertSign | X509KeyUsageFlags.CrlSign, true));
        _notBefore = DateTimeOffset.UtcNow.AddMinutes(-5);
        _notAfter = _notBefore.AddDays(1);
        Authority = caRequest.CreateSelfSigned(_notBefore, _notAfter);

        var names = new SubjectAlternativeNameBuilder();
        names.AddIpAddress(IPAddress.Loopback);
        names.AddDnsName("localhost");
        Server = Issue($"CN={name} server", ServerAuthentication, names.Build());
        Client = Issue($"CN={name} client", ClientAuthentication, null);

        File.WriteAllText(CaFile, Authority.ExportCertificatePem());
        Write(Server, ServerCertFile, ServerKeyFile);
        Write(Client, ClientCertFile, ClientKeyFile);
    }

    public string Directory { get; }

    public X509Certificate2 Authority { get; }

    public X509Certificate2 Server { get; }

    public X509Certificate2 Client { get; }

    public string CaFile => Path.Combine(Directory, "ca.pem");

    public string ServerCertFile => Path.Combine(Directory, "server.pem");

    public string ServerKeyFile => Path.Combine(Directory, "server.key");

    public string ClientCertFile => Path.Combine(Directory, "client.pem");

    public string ClientKeyFile => Path.Combine(Directory, "client.key");

    /// <summary>A new authority and its two certificates, named <paramref name="name"/>.</summary>
    public static TestCertificates Create(string name = "ScalableMetrics")
    {
        string directory = Path.Combine(Path.GetTempPath(), "scalablemetrics-certs-" + Guid.NewGuid().ToString("N"));
        System.IO.Directory.CreateDirectory(directory);
        return new TestCertificates(directory, name);
    }

    /// <summary>Whether <paramref name="certificate"/> chains to this authority alone.</summary>
    public bool Trusts(X509Certificate? certificate)
    {
        if (certificate is null)
        {
            return false;
        }

        using var chain = new X509Chain();
        chain.ChainPolicy.TrustMode = X509ChainTrustMode.CustomRootTrust;
        chain.ChainPolicy.CustomTrustStore.Add(Authority);
        chain.ChainPolicy.RevocationMode = X509RevocationMode.NoCheck;
        using X509Certificate2 leaf = X509CertificateLoader.LoadCertificate(certificate.GetRawCertData());
        return chain.Build(leaf);
    }

    /// <summary>An HTTP client that trusts this authority only, and presents <paramref name="clientCertificate"/> if given.</summary>
    public HttpClient NewClient(X509Certificate2? clientCertificate = null)
    {
        var handler = new SocketsHttpHandler();
        handler.SslOptions.RemoteCertificateValidationCallback = (_, certificate, _, _) => Trusts(certificate);
        if (clientCertificate is not null)
        {
            handler.SslOptions.ClientCertificates = [clientCertificate];
        }

        return new HttpClient(handler) { Timeout = TimeSpan.FromSeconds(30) };
    }

    public void Dispose()
    {
        Authority.Dispose();
        Server.Dispose();
        Client.Dispose();
        System.IO.Directory.Delete(Directory, recursive: true);
    }

    private static void Write(X509Certificate2 certificate, string certFile, string keyFile)
    {
        File.WriteAllText(certFile, certificate.ExportCertificatePem());
        File.WriteAllText(keyFile, certificate.GetECDsaPrivateKey()!.ExportPkcs8PrivateKeyPem());
    }

    private X509Certificate2 Issue(string subject, string usage, X509Extension? names)
    {
        using ECDsa key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest(subject, key, HashAlgorithmName.SHA256);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(false, false, 0, false));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.DigitalSignature, true));
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid(usage)], false));
        if (names is not null)
        {
            request.CertificateExtensions.Add(names);
        }

        byte[] serial = RandomNumberGenerator.GetBytes(16);
        serial[0] &= 0x7F;
        using X509Certificate2 issued = request.Create(Authority, _notBefore, _notAfter, serial);
        return issued.CopyWithPrivateKey(key);
    }
}
