using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace ScalableMetrics.Exporter.Prometheus.Scraping.Security;

/// <summary>
/// Checks a certificate the other end of a TLS connection presented against a private set of CA
/// certificates alone (not the system's roots), for one purpose: the standalone listener checking
/// a scraper's client certificate, and the OTLP exporter checking a receiver's server certificate.
/// </summary>
/// <remarks>Revocation is not checked: a private CA of a metrics pipeline publishes no revocation list. Thread-safe.</remarks>
internal static class PrivateCaChain
{
    /// <summary>The extended key usage of a TLS client certificate (RFC 5280, id-kp-clientAuth).</summary>
    public const string ClientAuthenticationOid = "1.3.6.1.5.5.7.3.2";

    /// <summary>The extended key usage of a TLS server certificate (RFC 5280, id-kp-serverAuth).</summary>
    public const string ServerAuthenticationOid = "1.3.6.1.5.5.7.3.1";

    /// <summary>Whether <paramref name="certificate"/> chains to one of <paramref name="trusted"/>, with the intermediates <paramref name="presented"/> carries, for <paramref name="purposeOid"/>.</summary>
    public static bool Verify(X509Certificate certificate, X509Chain? presented, X509Certificate2Collection trusted, string purposeOid)
    {
        using var chain = new X509Chain();
        chain.ChainPolicy.TrustMode = X509ChainTrustMode.CustomRootTrust;
        chain.ChainPolicy.CustomTrustStore.AddRange(trusted);
        chain.ChainPolicy.RevocationMode = X509RevocationMode.NoCheck;
        chain.ChainPolicy.ApplicationPolicy.Add(new Oid(purposeOid));
        if (presented is not null)
        {
            foreach (X509ChainElement element in presented.ChainElements)
            {
                chain.ChainPolicy.ExtraStore.Add(element.Certificate);
            }
        }

        using X509Certificate2 leaf = X509CertificateLoader.LoadCertificate(certificate.GetRawCertData());
        return chain.Build(leaf);
    }
}
