"""Lesson 6's messages: FLOPs, KV-cache, tiling, GQA and cache hints, tables and figures."""

MESSAGES = {
    "flops_keys": {
        "ja": "{name} はキーが {want} の辞書を返してください。返ってきた辞書のキー（辞書でなければ型）: {got}",
        "ko": "{name}에서는 키가 {want}인 딕셔너리를 반환하세요. 반환된 딕셔너리의 키(딕셔너리가 아니면 타입): {got}",
    },
    "flops_not_int": {
        "ja": "{step} の値は int にしてください（いまは {kind}）。回数やバイト数は整数なので、割り算には / ではなく // を使います。テンソルを返しているなら int(...) で数に直してください。",
        "ko": "{step}의 값은 int여야 합니다(지금은 {kind}). 횟수나 바이트 수는 정수이므로 나눗셈에는 / 대신 //를 씁니다. 텐서를 반환했다면 int(...)로 숫자로 바꾸세요.",
    },
    "flops_differs": {
        "ja": "{sizes} のとき、{step} の FLOPs が正しくありません（返した値: {got:,}、正しい値: {want:,}）。",
        "ko": "{sizes}일 때 {step}의 FLOPs가 올바르지 않습니다(반환: {got:,}, 올바른 값: {want:,}).",
    },
    "hint_flops_macs": {
        "ja": "返した値が正しい値のちょうど半分です（積和の回数を数えたようです）。積和1回は掛け算と足し算の2 FLOPs なので、(n×k) と (k×m) の積は 2·n·m·k FLOPs です。",
        "ko": "반환값이 올바른 값의 딱 절반입니다(곱셈-누산 횟수를 센 것 같습니다). 곱셈-누산 한 번은 곱셈과 덧셈으로 2 FLOPs이므로 (n×k)와 (k×m)의 곱은 2·n·m·k FLOPs입니다.",
    },
    "hint_flops_heads": {
        "ja": "ヘッド1つぶんしか数えていません。スコアと加重平均はヘッドごとに計算するので、H を掛けます（H·D = E なので 2·B·T²·E になります）。",
        "ko": "헤드 하나에 대한 값만 셌습니다. 점수와 가중 평균은 헤드마다 계산하므로 H를 곱하세요(H·D = E이므로 2·B·T²·E가 됩니다).",
    },
    "hint_flops_qkv3": {
        "ja": "qkv が正しい値の 3 分の 1 です（Q だけを数えたようです）。Q, K, V の3つぶんを数えてください。射影は (E × 3E) の行列1つなので 2·B·T·E·3E です。",
        "ko": "qkv가 올바른 값의 3분의 1입니다(Q만 센 것 같습니다). Q, K, V 세 개를 모두 세세요. 투영은 (E × 3E) 행렬 하나이므로 2·B·T·E·3E입니다.",
    },
    "hint_flops_batch": {
        "ja": "バッチの大きさ B を掛けていません。系列 B 本それぞれに同じ計算をします。",
        "ko": "배치 크기 B를 곱하지 않았습니다. 시퀀스 B개 각각에 같은 계산을 합니다.",
    },
    "hint_count_zero": {
        "ja": "返した値が 0 です。整数の割り算 // では、小さい数を大きい数で割ると 0 になります。D = E // H のように、割られる数と割る数の順番を確かめてください。",
        "ko": "반환값이 0입니다. 정수 나눗셈(//)에서 작은 수를 큰 수로 나누면 0이 됩니다. D = E // H처럼 나누는 순서가 맞는지 확인하세요.",
    },
    "hint_count_missing": {
        "ja": "返した値は、正しい値の 1/({factor}) です。式の中で {factor} を掛け忘れていないか確かめてください。",
        "ko": "반환값이 올바른 값의 1/({factor})입니다. 식에서 곱해야 할 값({factor})을 빠뜨리지 않았는지 확인하세요.",
    },
    "hint_count_extra": {
        "ja": "返した値は正しい値の {factor} 倍です。{factor} を余分に掛けています。",
        "ko": "반환값이 올바른 값의 {factor}배입니다. 곱할 필요가 없는 값({factor})을 곱했습니다.",
    },
    "hint_count_divided": {
        "ja": "返した値は正しい値の 1/({factor}·{factor}) で、{factor} で2回割ったことになっています。{factor} を掛けるべきところで割ると、掛け忘れたうえにもう1回割ることになるからです。式の中で {factor} の前が * ではなく / になっていないか確かめてください。",
        "ko": "반환값은 올바른 값을 {factor} 값으로 두 번 나눈 것(1/({factor}·{factor}))입니다. 곱해야 할 곳에서 그 값({factor})으로 나누면 한 번 덜 곱하고 한 번 더 나누게 되어 이렇게 됩니다. 식에서 {factor} 앞에 * 대신 /를 쓰지 않았는지 확인하세요.",
    },
    "hint_count_float": {
        "ja": "値そのものは正しいのですが、float になっています。式のどこかで / を使っていませんか（D = E / H など）。整数どうしの割り算には // を使います。",
        "ko": "값은 맞지만 자료형이 float입니다. 식 어딘가에서 /로 나누었기 때문입니다(D = E / H 등). /는 나누어떨어질 때도 float를 반환하므로, 정수끼리 나눌 때는 //를 쓰세요.",
    },
    "hint_kv_tensor": {
        "ja": "返した値がテンソルになっています。torch.empty((), dtype=dtype) はテンソルそのもので、中身は初期化されていない、でたらめな値です。要素のバイト数は、そのテンソルの .element_size() で整数として取り出します（torch.empty((), dtype=dtype).element_size()）。",
        "ko": "반환값이 텐서입니다. torch.empty((), dtype=dtype)의 결과는 바이트 수가 아니라 텐서이고, 그 안의 값은 초기화되지 않은 임의의 값입니다. 원소 하나의 바이트 수는 torch.empty((), dtype=dtype).element_size()처럼 .element_size()로 꺼내세요.",
    },
    "kv_bytes_differs": {
        "ja": "{sizes}、dtype={dtype} のとき、返した値 {got:,} バイトは正しくありません（正しい値: {want:,} バイト）。",
        "ko": "{sizes}, dtype={dtype}일 때 반환한 {got:,}바이트는 올바르지 않습니다(올바른 값: {want:,}바이트).",
    },
    "hint_kv_both": {
        "ja": "返した値が正しい値のちょうど半分です。キャッシュにはキーとバリューの両方を保存するので、2 を掛けます。",
        "ko": "반환값이 올바른 값의 딱 절반입니다. 캐시에는 키와 밸류를 모두 저장하므로 2를 곱합니다.",
    },
    "hint_kv_bits": {
        "ja": "返した値が正しい値の 8 倍です。element_size() はすでにバイト数です。ビットに直す必要はありません。",
        "ko": "반환값이 올바른 값의 8배입니다. element_size()는 이미 바이트 수입니다. 비트로 바꿀 필요가 없습니다.",
    },
    "hint_kv_layers": {
        "ja": "層の数 n_layer を掛けていません。層ごとに別のキャッシュがあります。",
        "ko": "층 수 n_layer를 곱하지 않았습니다. 층마다 따로 캐시가 있습니다.",
    },
    "hint_kv_dtype": {
        "ja": "要素のバイト数を dtype によらない決まった値（2 や 4）にしています。torch.empty((), dtype=dtype).element_size() で dtype から求めてください。",
        "ko": "원소 하나의 바이트 수를 dtype과 상관없이 고정된 값(2나 4)으로 썼습니다. torch.empty((), dtype=dtype).element_size()로 dtype에서 구하세요.",
    },
    "hint_kv_element_size": {
        "ja": "dtype によっては、要素1つのバイト数を求めるところでエラーになっています。torch.finfo は浮動小数点の dtype 専用で、int8 のような整数の dtype ではエラーになります。dtype ごとの対応表を自分で作ると、表にない dtype（float64 や int8 など）で KeyError になります。torch.empty((), dtype=dtype).element_size() なら、どの dtype でもバイト数が得られます。",
        "ko": "원소 하나의 바이트 수를 모든 dtype에 대해 구하지 못했습니다. torch.finfo는 부동소수점 dtype 전용이라 int8 같은 정수 dtype에서는 오류가 납니다. dtype별 표를 직접 만들면 표에 없는 dtype(float64나 int8)에서 막힙니다. torch.empty((), dtype=dtype).element_size()를 쓰면 어떤 dtype이든 바이트 수를 얻을 수 있습니다.",
    },
    "hint_cache_device": {
        "ja": "マスク（または途中で作ったテンソル）が CPU に作られています。torch.ones(...) のように device を指定せずに作ると CPU に置かれ、GPU 上のキーやスコアと組み合わせたときにエラーになります。device=x_new.device を渡してください。",
        "ko": "마스크(또는 중간에 만든 텐서)가 CPU에 만들어졌습니다. torch.ones(...)처럼 device를 지정하지 않으면 CPU에 놓이고, GPU에 있는 키나 점수와 함께 쓰면 오류가 납니다. device=x_new.device를 넘기세요.",
    },
    "cache_meta_device": {
        "ja": "attn と x_new を meta デバイス（GPU の代わりに使う、中身を持たないデバイス）に移して呼ぶと、出力が {device} にできました。出力は入力と同じデバイスに作られるはずです。",
        "ko": "attn과 x_new를 GPU 대신 meta 장치(값이 없는 가상 장치)에 두고 호출했더니 출력이 {device} 장치에 만들어졌습니다. 출력은 입력과 같은 장치에 있어야 합니다.",
    },
    "hint_tiled_sum": {
        "ja": "ブロックごとにソフトマックスをとって、その結果をそのまま足しています（上で見た flash_attention_concept と同じ誤りです）。これでは各ブロックの重みの和がそれぞれ 1 になり、1 行の合計がブロックの数になります。ソフトマックスはブロックごとにとらず、最大値 m と指数の和 ℓ を持ち歩いて acc を更新し、最後に acc を ℓ で割ってください。",
        "ko": "블록마다 소프트맥스를 적용한 결과를 그대로 더하고 있습니다(위에서 본 flash_attention_concept와 같은 오류입니다). 블록별 소프트맥스는 각각 합이 1이라서 한 행의 합계가 블록 수가 됩니다. 소프트맥스를 블록마다 따로 적용하지 말고, 최댓값 m과 지수의 합 ℓ을 유지하며 acc를 갱신한 뒤 마지막에 acc를 ℓ로 나누세요.",
    },
    "hint_tiled_rescale": {
        "ja": "最大値が上がったときに、acc を exp(m − m') 倍していません。ℓ と同じく acc も新しい最大値を基準に直します。",
        "ko": "최댓값이 올랐을 때 acc에 exp(m − m')을 곱하지 않았습니다. ℓ과 마찬가지로 acc도 새 최댓값을 기준으로 고칩니다.",
    },
    "hint_tiled_normalize": {
        "ja": "最後に acc を ℓ で割っていません。acc は、まだ ℓ で割って正規化していない和です。最後に acc / l を返してください。",
        "ko": "마지막에 acc를 ℓ로 나누지 않았습니다. acc는 정규화하기 전(ℓ로 나누기 전)의 합입니다. 마지막에 acc / l을 반환하세요.",
    },
    "hint_tiled_tail": {
        "ja": "ループが最後のキーまで進んでいません（処理したのはキーの位置 0〜{end} だけですが、T = {T} です）。ループは range(0, k.size(2), block_size) として、系列長 T まで回します。T が block_size で割り切れなくても、スライス k[:, :, start:start + block_size] が最後の短いブロックをそのまま切り出します。",
        "ko": "루프가 마지막 키까지 돌지 않았습니다(처리한 키는 위치 0 ~ {end}뿐인데 T = {T}입니다). range(0, k.size(2), block_size)로 시퀀스 축의 길이 T까지 반복하세요. T가 block_size로 나누어떨어지지 않아도, k[:, :, start:start + block_size]처럼 슬라이스하면 마지막 짧은 블록도 그대로 처리됩니다.",
    },
    "hint_tiled_nan": {
        "ja": "m と m' がどちらも −∞ だと、exp(m − m') が exp(−∞ + ∞) = NaN になります。ある行のスコアがそれまで全部 −∞ だったときに起こります。ブロックを位置 0 から順に処理しているか、因果マスクの向き（キーの位置 > クエリの位置を消す）を確かめてください。",
        "ko": "m과 m'이 모두 −∞이면 exp(m − m')이 exp(−∞ + ∞) = NaN이 됩니다. 어떤 행의 점수가 그때까지 모두 −∞였을 때 생깁니다. 블록을 위치 0부터 차례로 처리하는지, 인과 마스크의 방향(키의 위치 > 쿼리의 위치를 지움)이 맞는지 확인하세요.",
    },
    "hint_tiled_kv_swapped": {
        "ja": "キーとバリューが入れ替わっています。スコアはキーのブロックとの積 q @ kb.transpose(-2, -1) で、acc に足すのはバリューのブロックとの積 p @ vb です（kb は k の、vb は v の同じ範囲のスライス）。",
        "ko": "키와 밸류가 뒤바뀌었습니다. 점수는 키 블록과 곱한 q @ kb.transpose(-2, -1)이고, 누적하는 것은 밸류 블록과 곱한 p @ vb입니다(kb는 k를, vb는 v를 슬라이스한 블록).",
    },
    "hint_tiled_p": {
        "ja": "ブロックの指数 p の式が違います。p は本文の式の exp(s_j − m') で、コードでは p = torch.exp(s - m_new) です（s はそのブロックのスコア、m_new は新しい最大値 m'）。exp をとる前に、スコアから新しい最大値を引きます。",
        "ko": "블록의 가중치 p를 구하는 식이 틀렸습니다. p = torch.exp(s - m_new)입니다. 점수 s에서 새 최댓값 m_new를 뺀 다음 exp를 적용합니다.",
    },
    "hint_tiled_scale": {
        "ja": "これまでの和（ℓ と acc）に掛ける係数の式が違います。係数は本文の式の exp(m − m') で、コードでは scale = torch.exp(m - m_new) です。exp をとる前に、古い最大値 m から新しい最大値 m_new を引きます。",
        "ko": "지금까지의 합(ℓ과 acc)을 새 최댓값 기준으로 고치는 계수의 식이 틀렸습니다. scale = torch.exp(m - m_new)입니다. 이전 최댓값 m에서 새 최댓값 m_new를 뺀 다음 exp를 적용합니다.",
    },
    "hint_tiled_update": {
        "ja": "ℓ か acc を更新するときに、新しいブロックのぶんを引いています。どちらも足します：l = l * scale + p.sum(dim=-1, keepdim=True)、acc = acc * scale + p @ vb（scale は torch.exp(m - m_new)）。",
        "ko": "ℓ이나 acc를 갱신할 때 새 블록의 값을 더하지 않고 뺐습니다. 둘 다 더해야 합니다: l = l * scale + p.sum(dim=-1, keepdim=True), acc = acc * scale + p @ vb.",
    },
    "hint_tiled_final": {
        "ja": "最後の正規化が違います。返すのは acc を ℓ で割った acc / l です。acc * l のように掛けていないか、// ではなく / で割っているかを確かめてください。",
        "ko": "마지막 정규화가 틀렸습니다. acc를 ℓ로 나눈 acc / l을 반환합니다(곱하거나 //로 나누지 말고 /로 나누세요).",
    },
    "hint_tiled_size": {
        "ja": "長さ（整数）を渡すところに、テンソルそのものを渡しています。系列長は k.size(2)、ブロックの長さは kb.size(2) のように整数として取り出してから、range や torch.arange に渡します。",
        "ko": "길이를 써야 할 곳에 텐서 자체를 썼습니다. 시퀀스 길이는 k.size(2), 블록 길이는 kb.size(2)처럼 정수로 꺼내 쓰세요.",
    },
    "tiled_full_scores": {
        "ja": "tiled_attention が形状 {shape} のテンソルを作りました（T = {T}、block_size = {block}）。タイル分割では、スコアは (T, ブロック) の大きさでしか作りません。",
        "ko": "tiled_attention이 모양 {shape}인 텐서를 만들었습니다(T = {T}, block_size = {block}). 타일 분할에서는 점수를 (T, 블록) 크기로만 만듭니다.",
    },
    "hint_tiled_full": {
        "ja": "(T, T) のスコアを丸ごと作っています。答えは同じでも、この演習の目的は T × T の行列を作らないことです。キーとバリューを k[:, :, start:start + block_size] のようにブロックに分け、ブロックごとのスコア q @ kb.transpose(-2, -1) だけを作って、m、ℓ、acc を更新してください。",
        "ko": "(T, T) 점수를 통째로 만들고 있습니다. 결과가 같아도 이 연습 문제의 목적은 T × T 행렬을 만들지 않는 것입니다. 키와 밸류를 k[:, :, start:start + block_size]처럼 블록으로 나누고, 블록별 점수 q @ kb.transpose(-2, -1)만 만들어 m, ℓ, acc를 갱신하세요.",
    },
    "tiled_key_axis": {
        "ja": "tiled_attention が、キーの軸の長さが T = {T} のままのスコア（形状 {shape}）を作りました（block_size = {block}）。タイル分割では、スコアはキーのブロックごとに作り、キーの軸の長さは block_size にします。",
        "ko": "tiled_attention이 키 축 길이가 T = {T} 전체인 점수(모양 {shape})를 만들었습니다(block_size = {block}). 타일 분할에서는 점수를 한 번에 (T, 블록) 모양만큼만 만드세요.",
    },
    "hint_tiled_query_blocks": {
        "ja": "クエリをブロックに分け、キーは T 個すべてを一度に使っています。この演習でブロックに分けるのはキーとバリューのほうです。クエリは T 個まとめたまま、キーとバリューを k[:, :, start:start + block_size] のようにブロックに分け、ブロックごとのスコア q @ kb.transpose(-2, -1)（形状 (T, ブロック)）で m、l、acc を更新してください。オンラインソフトマックスは、キーのブロックを1つずつ進みながら最大値と和を更新するためのしくみです。",
        "ko": "쿼리를 블록으로 나누고, 키는 T개를 한꺼번에 쓰고 있습니다. 이 연습 문제에서 블록으로 나누는 것은 키와 밸류입니다. 쿼리는 T개를 그대로 두고, 키와 밸류를 k[:, :, start:start + block_size]처럼 블록으로 나눈 뒤, 블록별 점수 q @ kb.transpose(-2, -1)(모양 (T, 블록))로 m, l, acc를 갱신하세요. 온라인 소프트맥스는 키 블록을 하나씩 처리하면서 최댓값과 합을 갱신하는 방법입니다.",
    },
    "tiled_meta": {
        "ja": "q, k, v を meta デバイス（GPU の代わり）の float16 で渡すと、結果が {device} の {dtype} になりました。",
        "ko": "q, k, v를 meta 장치(GPU 대신)의 float16으로 넘기면 결과가 {device}의 {dtype}이 됩니다.",
    },
    "hint_tiled_device": {
        "ja": "m、ℓ、acc か、マスクに使う位置 rows、cols が、入力と別のデバイスに作られています。torch.zeros((B, H, T, 1)) や torch.arange(T) のように device= を指定せずに作ると CPU に置かれ、GPU 上の入力と組み合わせるとエラーになります。device=q.device を渡し（m と ℓ には dtype=q.dtype も）、acc は torch.zeros_like(q) で作ってください。",
        "ko": "m, ℓ, acc나 마스크에 쓰는 위치 rows, cols가 입력과 다른 장치에 만들어졌습니다. torch.zeros((B, H, T, 1))나 torch.arange(T)처럼 device=를 지정하지 않으면 CPU에 놓이고, GPU에 있는 입력과 함께 쓰면 오류가 납니다. device=q.device를 넘기고(m과 ℓ에는 dtype=q.dtype도), acc는 torch.zeros_like(q)로 만드세요.",
    },
    "hint_tiled_dtype": {
        "ja": "m、ℓ、acc のどれかが入力と別のデータ型で作られています。dtype= を指定しないと float32 になり、float16 の入力でも結果が float32 に変わります。dtype=q.dtype を渡すか、acc は torch.zeros_like(q) で作ってください。",
        "ko": "m, ℓ, acc 중 하나가 입력과 다른 자료형으로 만들어졌습니다. dtype=을 지정하지 않으면 float32가 되어, float16 입력이어도 결과가 float32로 바뀝니다. dtype=q.dtype을 넘기거나 acc는 torch.zeros_like(q)로 만드세요.",
    },
    "hint_tiled_max_update": {
        "ja": "ループの最後で m = m_new としていないようです。m が −∞ のままだと、係数 exp(m − m') が毎回 0 になり、それまでのブロックの ℓ と acc が消えて、最後のブロックだけが残ります。",
        "ko": "루프 마지막에 m = m_new를 하지 않은 것 같습니다. m이 −∞로 남아 있으면 계수 exp(m − m')이 매번 0이 되어, 그때까지의 블록에서 쌓은 ℓ과 acc가 사라지고 마지막 블록만 남습니다.",
    },
    "hint_tiled_row_axis": {
        "ja": "m や ℓ の形状が (B, H, T, 1) になっていません。最大値と和はクエリの行ごと、つまりキーの軸（最後の軸）でとります：s.amax(dim=-1, keepdim=True)、p.sum(dim=-1, keepdim=True)。dim=-2 でとったり keepdim=True を忘れたりすると、acc との計算で形状が合わなくなります。",
        "ko": "m이나 ℓ의 모양이 (B, H, T, 1)이 아닙니다. 최댓값과 합은 쿼리의 행마다, 즉 키 축(마지막 축)으로 구합니다: s.amax(dim=-1, keepdim=True), p.sum(dim=-1, keepdim=True). dim=-2로 구하거나 keepdim=True를 빠뜨리면 acc와 계산할 때 모양이 맞지 않게 됩니다.",
    },
    "hint_cache_mask_diagonal": {
        "ja": "マスクの対角線が1つ左にずれています（tril(diagonal=T_past - 1) など）。新しいトークン i は自分自身（絶対位置 T_past + i）のキーも見るので、tril(diagonal=T_past) です。1つずれると、プリフィルの最初のトークンが見られるキーがなくなり、その行が NaN になります。",
        "ko": "마스크의 대각선이 한 칸 왼쪽으로 밀렸습니다(tril(diagonal=T_past - 1) 등). 새 토큰 i는 자기 자신(절대 위치 T_past + i)의 키도 보므로 tril(diagonal=T_past)입니다. 한 칸 밀리면 프리필의 첫 토큰이 볼 수 있는 키가 없어져서 그 행이 NaN이 됩니다.",
    },
    "hint_cache_past_axis": {
        "ja": "T_past を、キーの違う軸から読んでいるようです。キャッシュの k も、つなげたあとの k も形状は (B, H, 系列長, D) なので、系列長は size(2) で読みます（size(1) はヘッドの数 H です）。つなげたあとなら T_past = k.size(2) - T_new、つなげる前なら T_past = cache[0].size(2) です。",
        "ko": "T_past를 키의 잘못된 축에서 읽은 것 같습니다. 캐시의 k도, 이어 붙인 뒤의 k도 (B, H, 시퀀스 길이, D)이므로 시퀀스 길이는 size(2)로 읽습니다(size(1)은 헤드 수 H입니다). T_past = k.size(2) - T_new이고, 이어 붙이기 전이라면 T_past = cache[0].size(2)입니다.",
    },
    "why_kv_proj": {
        "ja": "キーとバリューは G 個の KV ヘッドのぶんだけ作るので、出力はキーの G·D とバリューの G·D を合わせた 2·G·D です（2·E だと、G = H のふつうの MHA と同じ大きさになり、共有の意味がなくなります）。",
        "ko": "키와 밸류는 KV 헤드 G개 분량만 만들므로, 출력은 키의 G·D와 밸류의 G·D를 합친 2·G·D입니다(2·E로 하면 G = H인 일반 MHA와 같은 크기가 되어 함께 쓰는 의미가 없어집니다).",
    },
    "count_not_python_int": {
        "ja": "{step} の値は Python の int にしてください（いまは {kind}）。",
        "ko": "{step}의 값은 Python의 int여야 합니다(지금은 {kind}).",
    },
    "hint_count_python_int": {
        "ja": "値が Python の int ではありません（NumPy の整数や、要素1つのテンソルなど）。計算には Python の int を使うか、最後に int(...) で Python の int に直してください。",
        "ko": "값이 Python의 int가 아닙니다(NumPy 정수나 원소가 하나인 텐서 등). 계산에 Python의 int를 쓰거나, 마지막에 int(...)로 Python의 int로 바꾸세요.",
    },
    "hint_kv_float": {
        "ja": "値そのものは正しいのですが、float になっています。式のどこかで / を使っていませんか（torch.finfo(dtype).bits / 8 など）。要素のバイト数は torch.empty((), dtype=dtype).element_size() で整数のまま求められます。",
        "ko": "값 자체는 맞지만 float입니다. 식 어딘가에서 /를 쓰지 않았나요(torch.finfo(dtype).bits / 8 등)? 원소 하나의 바이트 수는 torch.empty((), dtype=dtype).element_size()로 정수 그대로 구할 수 있습니다.",
    },
    "hint_cache_float_dim": {
        "ja": "形状を表す数が float になっています（エラーの「got float」）。D = E / H のように / で割ると float になるので、D = E // attn.n_head のように // で割ります。",
        "ko": "모양을 나타내는 수가 float입니다(오류의 'got float'). D = E / H처럼 /로 나누면 float가 되므로 D = E // attn.n_head처럼 //로 나눕니다.",
    },
    "hint_no_scale_6": {
        "ja": "スケーリングを忘れているようです。スコア q @ k.transpose(-2, -1) を √D（ヘッドの次元）で割ってください。割らないと分散が D 倍になり、ソフトマックスが飽和します。",
        "ko": "스케일링을 빠뜨린 것 같습니다. 점수 q @ k.transpose(-2, -1)을 √D(헤드 하나의 차원)로 나누세요. 나누지 않으면 분산이 D배가 되어 소프트맥스가 포화됩니다.",
    },
    "hint_scale_d_6": {
        "ja": "D で割っていませんか。割るのは √D です（math.sqrt(D) または D ** 0.5）。D で割ると分散は 1 ではなく 1/D まで縮みます。",
        "ko": "D로 나누지 않았나요? 나누는 값은 √D입니다(math.sqrt(D) 또는 D ** 0.5). D로 나누면 분산이 1이 아니라 1/D까지 줄어듭니다.",
    },
    "hint_scale_mul_6": {
        "ja": "√D を掛けていませんか。掛けるのではなく割ります（q @ k.transpose(-2, -1) / math.sqrt(D)）。",
        "ko": "√D를 곱하지 않았나요? 곱하는 것이 아니라 나눕니다(q @ k.transpose(-2, -1) / math.sqrt(D)).",
    },
    "hint_scale_floor_6": {
        "ja": "スコアを // で割っていませんか。// は切り捨ての割り算で、スコアが整数に丸められます。/ で割ります（q @ k.transpose(-2, -1) / math.sqrt(D)）。",
        "ko": "점수를 //로 나누지 않았나요? //는 버림 나눗셈이라 점수가 정수로 잘립니다. /로 나눕니다(q @ k.transpose(-2, -1) / math.sqrt(D)).",
    },
    "hint_scale_inverted_6": {
        "ja": "√D をスコアで割っていませんか。割られるのはスコアのほうです（q @ k.transpose(-2, -1) / math.sqrt(D)）。",
        "ko": "√D를 점수로 나누지 않았나요? 나눠지는 쪽은 점수입니다(q @ k.transpose(-2, -1) / math.sqrt(D)).",
    },
    "hint_causal_6": {
        "ja": "因果マスクがかかっていません。キーの位置がクエリの位置より後ろのスコアを −∞ にしてから、ソフトマックスをとります。",
        "ko": "인과 마스크가 적용되지 않았습니다. 키의 위치가 쿼리의 위치보다 뒤인 점수를 −∞로 만든 다음 소프트맥스를 적용합니다.",
    },
    "gqa_no_error": {
        "ja": "GroupedQueryAttention{args} で ValueError が出ません（assert などほかの例外ではなく、ValueError を出してください）。割り切れない大きさのまま作ると、あとで形状の合わない計算になります。",
        "ko": "GroupedQueryAttention{args}에서 ValueError가 나지 않습니다(assert 같은 다른 예외가 아니라 ValueError를 내세요). 나누어떨어지지 않는 크기로 만들면 나중에 모양이 맞지 않는 계산이 됩니다.",
    },
    "hint_gqa_error": {
        "ja": "__init__ で embed_dim % n_head と n_head % n_kv_head を確かめ、0 でなければ ValueError を出してください。",
        "ko": "__init__에서 embed_dim % n_head와 n_head % n_kv_head를 확인하고, 0이 아니면 ValueError를 내세요.",
    },
    "hint_gqa_weights_heads": {
        "ja": "重みの形状が (B, H, T, T) になっていません。重みは KV ヘッドの数 G ではなく、クエリのヘッドの数 H だけ作ります。キーとバリューを repeat_interleave で H 個に広げてからスコアを計算してください。",
        "ko": "가중치의 모양이 (B, H, T, T)가 아닙니다. 가중치는 KV 헤드 수 G가 아니라 쿼리 헤드 수 H만큼 만듭니다. 키와 밸류를 repeat_interleave로 H개로 늘린 뒤 점수를 계산하세요.",
    },
    "hint_gqa_repeat": {
        "ja": "KV ヘッドの並べ方が違います。repeat では 0, 1, 0, 1, … と並びます。ヘッド h が KV ヘッド h // (H // G) を使うように repeat_interleave(H // G, dim=1) を使ってください。",
        "ko": "KV 헤드를 늘어놓는 순서가 다릅니다. repeat을 쓰면 0, 1, 0, 1, … 순서가 됩니다. 헤드 h가 KV 헤드 h // (H // G)를 쓰도록 repeat_interleave(H // G, dim=1)을 쓰세요.",
    },
    "hint_gqa_kv_swapped": {
        "ja": "キーとバリューが入れ替わっています。kv_proj の出力の前半がキー、後半がバリューです。",
        "ko": "키와 밸류가 뒤바뀌었습니다. kv_proj 출력의 앞쪽 절반이 키, 뒤쪽 절반이 밸류입니다.",
    },
    "hint_gqa_attributes": {
        "ja": "forward が使う属性が __init__ で設定されていません（別の名前に入れていませんか）。__init__ では self.embed_dim, self.n_head, self.n_kv_head = embed_dim, n_head, n_kv_head と self.head_dim = course.resolve_head_dim(embed_dim, n_head) を、この名前のまま設定します。",
        "ko": "forward가 쓰는 속성이 __init__에서 저장되지 않았습니다(다른 이름으로 저장하지 않았는지 확인하세요). __init__에서 self.embed_dim, self.n_head, self.n_kv_head = embed_dim, n_head, n_kv_head로 세 값을 저장하고, self.head_dim = course.resolve_head_dim(embed_dim, n_head)로 헤드 차원을 저장합니다. 속성 이름은 이대로 써야 합니다.",
    },
    "hint_gqa_expect_tokens": {
        "ja": "正しい入力を渡したのに、forward の最初で入力を確かめる course.expect_tokens(x, self.embed_dim) がエラーを出しました。引数はテンソルが先、埋め込み次元があとです。__init__ で self.embed_dim に embed_dim を入れているか（n_head や n_kv_head と取り違えていないか）も確かめてください。",
        "ko": "올바른 입력인데 forward 맨 앞의 입력 확인에서 오류가 났습니다. course.expect_tokens(x, self.embed_dim)에는 텐서를 먼저, 임베딩 차원을 나중에 넘깁니다. __init__에서 self.embed_dim에 embed_dim을 넣었는지(n_head나 n_kv_head와 뒤바뀌지 않았는지)도 확인하세요.",
    },
    "hint_gqa_init_args": {
        "ja": "割り切れる正しい大きさを渡したのに、__init__ で大きさを確かめるところがエラーを出しました。course.resolve_head_dim(embed_dim, n_head) と course.resolve_kv_groups(n_head, n_kv_head) の引数の順番を確かめてください。",
        "ko": "나누어떨어지는 올바른 크기인데 __init__의 크기 확인에서 오류가 났습니다. course.resolve_head_dim(embed_dim, n_head)와 course.resolve_kv_groups(n_head, n_kv_head)에 넘긴 인수의 순서를 확인하세요.",
    },
    "hint_gqa_shapes": {
        "ja": "テンソルの形状が合っていません。スコアは q @ k.transpose(-2, -1)（(B, H, T, D) @ (B, H, D, T)）で、K は転置してから掛けます。出力は weights @ v（重みが左）です。q, k, v がそれぞれ (B, ヘッドの数, T, D) になっているかも確かめてください。ヘッドに分けるときは view(B, T, ヘッドの数, D) が先、transpose(1, 2) があとです（順番を逆にしたり、別の軸を入れ替えたりすると形状が変わります）。キーとバリューを広げたあとのヘッドの数は H です：1つの KV ヘッドを G 回ではなく H // G 回ずつ繰り返します（repeat_interleave(H // G, dim=1)）。",
        "ko": "텐서의 모양이 맞지 않습니다. 점수는 q @ k.transpose(-2, -1)입니다. (B, H, T, D) @ (B, H, D, T)가 되도록 k를 전치한 다음 곱합니다. 출력은 weights @ v입니다(가중치가 왼쪽). q, k, v가 각각 (B, 헤드 수, T, D)인지도 확인하세요. 헤드로 나눌 때는 view(B, T, 헤드 수, D)가 먼저, transpose(1, 2)가 나중입니다(순서를 거꾸로 하거나 다른 축끼리 바꾸면 모양이 달라집니다). 키와 밸류를 늘린 뒤의 헤드 수는 H입니다: KV 헤드 하나를 G번이 아니라 H // G번씩 반복합니다(repeat_interleave(H // G, dim=1)).",
    },
    "hint_gqa_sizes": {
        "ja": "view か split に渡す大きさが、テンソルと合っていません。H, G, D = self.n_head, self.n_kv_head, self.head_dim として、q は view(B, T, H, D)、kv_proj の出力は split(G * D, dim=2) でキーとバリューに分けてから、それぞれ view(B, T, G, D) にします。H, G, D を取り違えていないか確かめてください。",
        "ko": "view나 split에 넘긴 크기가 텐서와 맞지 않습니다. H, G, D = self.n_head, self.n_kv_head, self.head_dim으로 두면, q는 view(B, T, H, D)로 만들고, kv_proj의 출력은 split(G * D, dim=2)로 키와 밸류를 나눈 뒤 각각 view(B, T, G, D)로 만듭니다. H, G, D를 서로 바꿔 쓰지 않았는지 확인하세요.",
    },
    "hint_gqa_q_not_projected": {
        "ja": "クエリを射影していません。q は x そのものではなく、self.q_proj(x) を (B, H, T, D) に分けたものです。",
        "ko": "쿼리를 투영하지 않았습니다. q는 x 그대로가 아니라 self.q_proj(x)를 (B, H, T, D)로 만든 것입니다.",
    },
    "hint_merge_order_6": {
        "ja": "ヘッドごとの出力の値は正しいのですが、ヘッドをつなぐときの並び順が違います。weights @ v は (B, H, T, D) なので、transpose(1, 2) で (B, T, H, D) にしてから .contiguous().view(B, T, E) でヘッドをつなぎます（attend_with_cache では T は T_new です）。transpose を省いたり別の軸を入れ替えたりすると、値が別の場所に入ります。",
        "ko": "출력에 올바른 값은 다 있지만 놓인 순서가 다릅니다. 헤드별 출력 weights @ v는 (B, H, T, D)이므로, transpose(1, 2)를 써서 (B, T, H, D)로 바꾼 뒤 .contiguous().view(B, T, E)로 헤드를 이어 붙입니다(attend_with_cache에서는 T가 T_new입니다). transpose를 빼거나 다른 축끼리 바꾸면 값이 다른 자리에 들어갑니다.",
    },
    "cache_not_pair": {
        "ja": "キャッシュは (k, v) のタプルで返してください。返ってきたのは {kind} です。",
        "ko": "캐시는 (k, v) 튜플로 반환하세요. 반환된 것: {kind}",
    },
    "returned_not_cache_pair": {
        "ja": "{name} は (出力, キャッシュ) の2つを返してください。返ってきたのは {kind} です。",
        "ko": "{name}에서는 (출력, 캐시) 두 개를 반환해야 합니다. 반환된 것: {kind}",
    },
    "hint_cache_concat": {
        "ja": "キャッシュは (B, H, これまでのトークン数, D) です。古いキャッシュと新しいキー・バリューを torch.cat(..., dim=2)（系列の軸）でつなげ、新しい k, v だけでなく、つなげたあとの (k, v) をキャッシュとして返してください。",
        "ko": "캐시는 (B, H, 지금까지의 토큰 수, D)입니다. 이전 캐시와 새 키·밸류를 torch.cat(..., dim=2)(시퀀스 축)로 이어 붙이고, 새 k, v만이 아니라 이어 붙인 (k, v)를 캐시로 반환하세요.",
    },
    "hint_cache_output_tokens": {
        "ja": "出力のトークン数が、渡した x_new のトークン数 T_new より少なくなっています。生成で使うのは最後のトークンの出力だけですが、この関数は新しいトークンすべての出力 (B, T_new, E) を返します（プリフィルなら、プロンプトの T_new 個すべてです）。最後の位置だけを取り出す [:, -1:] や、クエリを最後のトークンだけに絞る処理を外してください。",
        "ko": "출력의 토큰 수가 넘겨받은 x_new의 토큰 수 T_new보다 적습니다. 생성할 때는 마지막 토큰의 출력만 쓰지만, 이 함수는 새 토큰 전부의 출력 (B, T_new, E)를 반환해야 합니다(프리필에서는 프롬프트 전체가 새 토큰입니다). 마지막 위치만 꺼내는 [:, -1:]나 쿼리를 마지막 토큰 하나로 줄이는 처리를 지우세요.",
    },
    "cache_steps_missing": {
        "ja": "隠しテスト: attend_with_cache を {total} 回呼ぶはずでしたが、結果は {n} 回分しか記録されていません（エラーも記録されていません）。",
        "ko": "숨겨진 테스트: attend_with_cache를 {total}번 호출해야 하는데 {n}번 호출한 결과만 있습니다(기록된 오류도 없습니다).",
    },
    "hint_cache_steps": {
        "ja": "隠しテストの呼び出しが、エラーを出さないまま途中で打ち切られました。ノートブックのどこかで講座のコード（course.probes など）を書き換えていないか、関数の中にプログラムを止めるコード（exit() など）がないか確かめ、カーネルを再起動してから全部のセルを実行し直してください。",
        "ko": "숨겨진 테스트의 호출이 오류 없이 중간에 끊겼습니다. 노트북 어딘가에서 강좌의 코드(course.probes 등)를 바꾸지 않았는지, 함수 안에 프로그램을 멈추는 코드(exit() 등)가 없는지 확인하고, 커널을 다시 시작한 뒤 모든 셀을 다시 실행하세요.",
    },
    "hint_cache_return_order": {
        "ja": "返す順番が逆です。attend_with_cache は (出力, キャッシュ) の順に返します：return attn.c_proj(y), (k, v)（y はヘッドをつないだ (B, T_new, E)）。",
        "ko": "반환 순서가 거꾸로입니다. attend_with_cache는 (출력, 캐시) 순서로 반환하므로 return attn.c_proj(y), (k, v)로 씁니다.",
    },
    "hint_cache_past_tensor": {
        "ja": "tril の diagonal に渡す T_past がテンソルになっています。diagonal には整数を渡します。T_past = k.size(2) - T_new のように、つないだあとのキーの数から求めてください。",
        "ko": "T_past가 텐서입니다. tril의 diagonal에는 정수를 넘겨야 합니다. T_past = k.size(2) - T_new처럼 이어 붙인 뒤의 키 개수(정수)에서 구하세요.",
    },
    "cache_differs": {
        "ja": "位置 {lo}〜{last} のトークン（{n} 個）の出力が、全体を一度に計算した結果と違います（最大誤差 {err:.3g}）。",
        "ko": "위치 {lo} ~ {last}의 토큰({n}개) 출력이 전체를 한 번에 계산한 결과와 다릅니다(최대 오차 {err:.3g}).",
    },
    "hint_cache_mask_offset": {
        "ja": "マスクが新しいトークンの絶対位置に合っていません。tril() のままだと、キャッシュがあるとき新しいトークン i は先頭の i+1 個のキーしか見られません。対角線を T_past だけ右にずらし、tril(diagonal=T_past) にしてください。SDPA の is_causal=True も同じ左上にそろえたマスクなので、ここでは使えません。SDPA を使うなら attn_mask=torch.nn.attention.bias.causal_lower_right(T_new, T_all) を渡します（その keep マスクを渡しても結果は同じですが、GPU では FlashAttention が使えなくなります）。",
        "ko": "마스크가 새 토큰의 절대 위치에 맞지 않습니다. tril()을 그대로 쓰면 캐시가 있을 때 새 토큰 i가 맨 앞의 키 i+1개만 보게 됩니다. 대각선을 T_past만큼 오른쪽으로 밀어 tril(diagonal=T_past)로 만드세요. SDPA의 is_causal=True도 똑같이 왼쪽 위에 맞춘 마스크라서 여기서는 쓸 수 없습니다. SDPA를 쓴다면 attn_mask=torch.nn.attention.bias.causal_lower_right(T_new, T_all)을 넘기세요(그 keep 마스크를 넘겨도 결과는 같지만, GPU에서는 FlashAttention을 쓸 수 없게 됩니다).",
    },
    "hint_cache_unused": {
        "ja": "新しいトークンが、キャッシュにある過去のキーとバリューを見ていません。スコアを計算する前に、キャッシュと新しい k, v をつなげてください。",
        "ko": "새 토큰이 캐시에 있는 이전 키와 밸류를 보지 않습니다. 점수를 계산하기 전에 캐시와 새 k, v를 이어 붙이세요.",
    },
    "cache_contents_differ": {
        "ja": "合わせて {hi} 個のトークンを渡したあとに返したキャッシュ (k, v) は、形状は合っていますが、中身が正しくありません。",
        "ko": "토큰 {hi}개를 넘긴 뒤 반환한 캐시 (k, v)의 내용이 올바르지 않습니다(모양은 맞습니다).",
    },
    "hint_cache_kv_swapped": {
        "ja": "キャッシュのキーとバリューが入れ替わっています。キャッシュは (k, v) の順で、cache[0] がキー、cache[1] がバリューです。つなげるときも返すときも、この順を守ってください。",
        "ko": "캐시의 키와 밸류가 뒤바뀌었습니다. 캐시는 (k, v) 순서이므로 cache[0]이 키, cache[1]이 밸류입니다. 이어 붙일 때도 반환할 때도 이 순서를 지키세요.",
    },
    "hint_cache_cat_order": {
        "ja": "キャッシュの中で、新しいキー・バリューが古いものより前に来ています。位置の順に並ぶよう、古いキャッシュを前に、新しい k, v を後ろにしてつなげてください（torch.cat([cache[0], k], dim=2)）。",
        "ko": "캐시 안에서 새 키와 밸류가 이전 것보다 앞에 있습니다. 위치 순서대로 놓이도록 이전 캐시를 앞에, 새 k, v를 뒤에 두고 이어 붙이세요(torch.cat([cache[0], k], dim=2)).",
    },
    "hint_cache_mask_sign": {
        "ja": "マスクの対角線を逆向きにずらしています。キャッシュがあるとき、新しいトークンはキャッシュのキーをすべて見てよいので、対角線は左ではなく右に T_past だけずらします（tril(diagonal=T_past)、T_past = T_all - T_new）。左にずらすと、見てよいキーが1つもない行ができ、その行のソフトマックスが NaN になります。",
        "ko": "마스크의 대각선을 반대 방향으로 옮겼습니다. 캐시가 있으면 새 토큰은 캐시의 키를 모두 볼 수 있으므로, 대각선을 왼쪽이 아니라 오른쪽으로 T_past만큼 옮겨야 합니다(tril(diagonal=T_past), T_past = T_all - T_new). 왼쪽으로 옮기면 볼 수 있는 키가 하나도 없는 행이 생기고, 그 행에서는 소프트맥스 결과가 NaN이 됩니다.",
    },
    "sdpa_used": {
        "ja": "SDPA が選んだバックエンド: {backend}（表の ← の行）。入力: {shape}、{dtype}",
        "ko": "SDPA가 고른 백엔드: {backend}(표에서 ←가 붙은 행). 입력: {shape}, {dtype}",
    },
    "sdpa_order": {
        "ja": "SDPA がバックエンドを調べる順番（優先順位）: {order}",
        "ko": "SDPA가 백엔드를 살펴보는 순서(우선순위): {order}",
    },
    "table_backend": {"ja": "バックエンド（SDPBackend）", "ko": "백엔드(SDPBackend)"},
    "table_here": {"ja": "この環境で", "ko": "이 환경에서"},
    "table_needs": {"ja": "条件（PyTorch 2.13）", "ko": "조건(PyTorch 2.13)"},
    "table_why_not": {"ja": "動かない理由", "ko": "동작하지 않는 이유"},
    "sdpa_needs_flash": {
        "ja": "GPU: sm80 以降、float16 か bfloat16、ヘッドの次元 256 以下、attn_mask なし（is_causal=True は T_q = T_k のときだけ）。CPU: CPU 用の実装があり float32 でも動くが、ドロップアウトは使えない",
        "ko": "GPU: sm80 이상, float16 또는 bfloat16, 헤드 차원 256 이하, attn_mask 없음(is_causal=True는 T_q = T_k일 때만). CPU: CPU용 구현이 있어 float32에서도 동작하지만 드롭아웃은 쓸 수 없음",
    },
    "sdpa_needs_efficient": {
        "ja": "GPU のみ: sm50 以降、float16 か float32（bfloat16 は sm80 以降）、ヘッドの次元は 4 か 8 の倍数（データ型と GPU による）。attn_mask も使える",
        "ko": "GPU 전용: sm50 이상, float16 또는 float32(bfloat16은 sm80 이상), 헤드 차원은 4나 8의 배수(자료형과 GPU에 따라 다름). attn_mask도 쓸 수 있음",
    },
    "sdpa_needs_cudnn": {
        "ja": "GPU のみ: sm80 以降、cuDNN 9 以降、float16 か bfloat16、ヘッドの次元は 8 の倍数で 128 以下（H100 などでは 256 以下）",
        "ko": "GPU 전용: sm80 이상, cuDNN 9 이상, float16 또는 bfloat16, 헤드 차원은 8의 배수이면서 128 이하(H100 등에서는 256 이하)",
    },
    "sdpa_needs_math": {
        "ja": "どのデバイス・データ型でも動く。ただし素朴な実装と同じく (B, H, T, T) の重みを作る",
        "ko": "어떤 장치와 자료형에서도 동작함. 다만 단순한 구현처럼 (B, H, T, T) 가중치를 만듦",
    },
    "sdpa_gpu_only": {"ja": "GPU（CUDA）専用です", "ko": "GPU(CUDA) 전용입니다"},
    "table_mask": {"ja": "マスク", "ko": "마스크"},
    "table_key": {"ja": "キー {j}", "ko": "키 {j}"},
    "progress_measure": {"ja": "測定", "ko": "측정"},
    "progress_decode": {"ja": "生成", "ko": "생성"},
    "measured_on": {
        "ja": "測定したデバイス: {device}、データ型: {dtype}",
        "ko": "측정한 장치: {device}, 자료형: {dtype}",
    },
    "table_T": {"ja": "系列長 T", "ko": "시퀀스 길이 T"},
    "table_gflops": {"ja": "GFLOPs（合計）", "ko": "GFLOPs(합계)"},
    "table_quadratic_share": {"ja": "T² の項の割合", "ko": "T² 항의 비율"},
    "table_ms_naive": {"ja": "素朴な実装 [ms]", "ko": "단순한 구현 [ms]"},
    "table_ms_sdpa": {"ja": "SDPA [ms]", "ko": "SDPA [ms]"},
    "table_speedup": {"ja": "SDPA は何倍速いか", "ko": "SDPA 속도 향상(배)"},
    "table_mib_naive": {"ja": "素朴な実装 [MiB]", "ko": "단순한 구현 [MiB]"},
    "table_mib_sdpa": {"ja": "SDPA [MiB]", "ko": "SDPA [MiB]"},
    "table_mib_estimate": {"ja": "見積もり B·H·T²·バイト数 [MiB]", "ko": "추정 B·H·T²·바이트 [MiB]"},
    "table_mib_peak": {"ja": "ピークメモリ [MiB]", "ko": "최대 메모리 사용량 [MiB]"},
    "table_ms": {"ja": "時間 [ms]", "ko": "시간 [ms]"},
    "table_shape": {"ja": "層 × ヘッド × D", "ko": "층 × 헤드 × D"},
    "table_kind": {"ja": "方式", "ko": "방식"},
    "table_params_layer": {"ja": "1層のパラメータ数", "ko": "한 층의 파라미터 수"},
    "table_cache_mib": {"ja": "KV キャッシュ [MiB]", "ko": "KV 캐시 [MiB]"},
    "label_naive": {"ja": "素朴な実装", "ko": "단순한 구현"},
    "label_tiled": {"ja": "タイル分割（ブロック {b}）", "ko": "타일 분할(블록 {b})"},
    "label_checkpoint": {
        "ja": "勾配チェックポイントあり",
        "ko": "그래디언트 체크포인팅 사용",
    },
    "label_no_checkpoint": {
        "ja": "勾配チェックポイントなし",
        "ko": "그래디언트 체크포인팅 사용 안 함",
    },
    "seed_flash_error": {
        "ja": "flash_attention_concept と SDPA の差: 最大 {err:.3f}。1 行の重みの合計: {total:.1f}（1 のはずです）",
        "ko": "flash_attention_concept와 SDPA의 차이: 최대 {err:.3f}. 한 행의 가중치 합계: {total:.1f}(1이어야 합니다)",
    },
    "tiled_error": {
        "ja": "あなたの tiled_attention と SDPA の差（T = 2048、因果マスクあり）: 最大 {err:.2e}",
        "ko": "여러분의 tiled_attention과 SDPA의 차이(T = 2048, 인과 마스크 있음): 최대 {err:.2e}",
    },
    "cache_check": {
        "ja": "キャッシュを使った出力と一度に計算した出力の差: 最大 {err:.2e}。キャッシュの大きさ: {got:,} バイト（演習 4 の見積もり: {want:,} バイト）",
        "ko": "캐시를 쓴 출력과 한 번에 계산한 출력의 차이: 최대 {err:.2e}. 캐시 크기: {got:,}바이트(연습 문제 4의 추정: {want:,}바이트)",
    },
    "cache_speed": {
        "ja": "{n} トークンの生成（この実行での測定）: 毎回計算し直すと {slow:.2f} 秒、KV キャッシュを使うと {fast:.2f} 秒。計算し直すほうが {ratio:.1f} 倍の時間がかかりました。",
        "ko": "토큰 {n}개 생성(이번 실행에서 잰 값): 매번 다시 계산하면 {slow:.2f}초, KV 캐시를 쓰면 {fast:.2f}초. 다시 계산하는 쪽이 {ratio:.1f}배의 시간이 걸렸습니다.",
    },
    "autocast_dtypes": {
        "ja": "入力: {x}、autocast の中の出力: {y}、アテンションの重み: {w}。float32 で計算した出力との差: 最大 {err:.2e}",
        "ko": "입력: {x}, autocast 안의 출력: {y}, 어텐션 가중치: {w}. float32로 계산한 출력과의 차이: 최대 {err:.2e}",
    },
    "deprecated_warning": {"ja": "古い書き方の警告（{kind}）: {text}", "ko": "옛 방식에서 나온 경고({kind}): {text}"},
    "checkpoint_grads": {
        "ja": "チェックポイントあり・なしの勾配の差: 最大 {err:.2e}",
        "ko": "체크포인팅을 쓸 때와 쓰지 않을 때의 기울기 차이: 최대 {err:.2e}",
    },
    "fig_cost_time_title": {
        "ja": "時間（順伝播）",
        "ko": "시간(순전파)",
    },
    "fig_cost_memory_title": {"ja": "ピークメモリ", "ko": "최대 메모리 사용량"},
    "fig_seq_len_axis": {"ja": "系列長 T（対数目盛）", "ko": "시퀀스 길이 T(로그 눈금)"},
    "fig_seconds_axis": {"ja": "秒（対数目盛）", "ko": "초(로그 눈금)"},
    "fig_mib_axis": {"ja": "MiB（対数目盛）", "ko": "MiB(로그 눈금)"},
    "fig_slope": {"ja": "傾き {k}", "ko": "기울기 {k}"},
    # ---------------------------------------------------------------- code comments
    "c6_per_head_scores": {"ja": "ヘッドごとに (T, D) @ (D, T)", "ko": "헤드마다 (T, D) @ (D, T)"},
    "c6_per_head_weighted_sum": {"ja": "ヘッドごとに (T, T) @ (T, D)", "ko": "헤드마다 (T, T) @ (T, D)"},
    "c6_compute_dtype": {
        "ja": "CPU は float32、GPU は sm80 以上で bfloat16、未満で float16",
        "ko": "CPU는 float32, GPU는 sm80 이상이면 bfloat16, 미만이면 float16",
    },
    "c6_as_attn_passes": {"ja": "attn が SDPA に渡すのと同じ入力", "ko": "attn이 SDPA에 넘기는 것과 같은 입력"},
    "c6_ones_as_values": {
        "ja": "すべて 1 のバリューなら、出力は各行の重みの和",
        "ko": "모두 1인 밸류로 쓰면 출력은 각 행의 가중치 합계",
    },
    "c6_running_max": {"ja": "これまでの最大値", "ko": "지금까지의 최댓값"},
    "c6_running_sum": {"ja": "これまでの指数の和", "ko": "지금까지의 지수 합"},
    "c6_query_positions": {"ja": "(T, 1)：クエリの位置", "ko": "(T, 1): 쿼리 위치"},
    "c6_key_positions": {"ja": "キーの位置", "ko": "키 위치"},
    "c6_rebase_sums": {"ja": "これまでの和を m_new 基準に直す", "ko": "지금까지의 합을 m_new 기준으로 맞춤"},
    "c6_heads_per_group": {"ja": "KV ヘッド1つにクエリヘッド H / G 個", "ko": "KV 헤드 하나에 쿼리 헤드 H / G개"},
    "c6_keys_and_values": {"ja": "2：キーとバリュー", "ko": "2: 키와 밸류"},
    "c6_meta_device": {"ja": "形状だけでメモリは確保しない", "ko": "모양만 만들고 메모리는 할당하지 않음"},
    "c6_eye_as_values": {
        "ja": "単位行列をバリューにすると、出力は重みの行そのもの",
        "ko": "단위 행렬을 밸류로 쓰면 출력은 가중치 행 그대로",
    },
    "c6_cpu_autocast": {"ja": "CPU の autocast は bfloat16 で計算する", "ko": "CPU의 autocast는 bfloat16으로 계산한다"},
    "c6_residual_block": {"ja": "残差接続つきのブロック", "ko": "잔차 연결이 있는 블록"},
    "c6_blockwise_wrong_doc": {"ja": "FlashAttention の考え方としてよく紹介される、誤ったブロックごとの計算：ブロックごとのソフトマックスの結果をそのまま足すだけ", "ko": "FlashAttention의 아이디어로 흔히 소개되는 블록별 계산: 블록마다 소프트맥스를 더하기만 함. 틀림"},
}
