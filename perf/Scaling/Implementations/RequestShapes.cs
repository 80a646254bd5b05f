namespace ScalableMetrics.Scaling.Implementations;

/// <summary>
/// The requests the tagged workloads record, as ASP.NET Core's hosting metrics see them: 8 route
/// templates, each with its method and status code, over HTTP/1.1.
/// </summary>
/// <remarks>
/// <para>Every value is one string instance for the whole run, as in a service: the method and
/// scheme are constants (ASP.NET Core resolves the method to <c>HttpMethods.Get</c> and the like),
/// the route templates come from endpoint metadata, made once at startup. Status codes are boxed
/// once each, from a table, as ASP.NET Core's <c>GetBoxedStatusCode</c> does, so no record boxes.</para>
/// <para>prometheus-net takes label values as strings only: its status codes are strings made
/// once (<see cref="StatusCodeText"/>), its best case; a service that formats the status code per
/// request pays more.</para>
/// </remarks>
internal static class RequestShapes
{
    /// <summary>How many distinct requests a <c>-spread</c> workload cycles through: a power of two, so the next one is found with a mask.</summary>
    public const int RouteCount = 8;

    /// <summary>The scheme of every request (<c>url.scheme</c>).</summary>
    public const string Scheme = "http";

    /// <summary>The protocol version of every request (<c>network.protocol.version</c>), as ASP.NET Core names HTTP/1.1.</summary>
    public const string ProtocolVersion = "1.1";

    // ASP.NET Core caches the boxes of status codes 100..599; the same range here.
    private const int FirstBoxedStatusCode = 100;

    private static readonly object[] s_boxedStatusCodes = [.. Enumerable.Range(FirstBoxedStatusCode, 500).Select(static code => (object)code)];

    /// <summary>The route templates (<c>http.route</c>); route 0 is the one a <c>-hot</c> workload records.</summary>
    public static string[] Routes { get; } =
    [
        "/api/orders/{id}",
        "/api/orders",
        "/api/customers/{id}",
        "/api/customers",
        "/api/products/{id}",
        "/api/products",
        "/health",
        "/api/orders/{id}/items",
    ];

    /// <summary>The method of each route's requests (<c>http.request.method</c>).</summary>
    public static string[] Methods { get; } = ["GET", "POST", "GET", "PUT", "GET", "DELETE", "GET", "GET"];

    /// <summary>The status code of each route's responses (<c>http.response.status_code</c>).</summary>
    public static int[] StatusCodes { get; } = [200, 201, 200, 204, 404, 400, 200, 500];

    /// <summary>The same status codes as strings, made once, for prometheus-net's labels.</summary>
    public static string[] StatusCodeText { get; } = [.. StatusCodes.Select(static code => code.ToString(System.Globalization.CultureInfo.InvariantCulture))];

    /// <summary>The box of <paramref name="statusCode"/> from the table: the same object every time, as ASP.NET Core's cache gives.</summary>
    public static object BoxedStatusCode(int statusCode) => s_boxedStatusCodes[statusCode - FirstBoxedStatusCode];
}
